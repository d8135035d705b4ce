package cli

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tokens"
	"github.com/clawdcode/clawdcode/internal/usage"
)

// UsageOptions are the arguments of `clawdcode usage` (CONTRACT.md
// section 17).
type UsageOptions struct {
	By           usage.Grouping
	Since, Until string
	All, JSON    bool
}

// NewCmdUsage builds `clawdcode usage`; runF replaces the behaviour in tests.
func NewCmdUsage(f *Factory, runF func(context.Context, *UsageOptions) error) *cobra.Command {
	opts := &UsageOptions{}
	cmd := &cobra.Command{
		Use:   "usage [daily|monthly|session|model]",
		Short: "Tokens and cost over the stored sessions",
		Long: `Report the tokens the stored sessions' model calls used (input, the part
of it the server served from its cache, output) and what they cost at the
price table (the built-in one, under config.toml's [prices]), by day (the
default), month, session or model. Imported Claude Code and Codex sessions
count at their own models' prices. A subagent counts under its parent's
session and is shown apart; so are the summary calls of compactions.
Models without a known price (a local server's) count at $0.`,
		Example: `  clawdcode usage
  clawdcode usage monthly --all
  clawdcode usage session --since 2026-01-01 --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			by, ok := usage.ByDay, true
			if len(args) == 1 {
				by, ok = usage.ParseGrouping(args[0])
			}
			if !ok {
				return usageErrorf("unknown report %q: use daily, monthly, session or model", args[0])
			}
			opts.By = by
			for _, d := range []struct{ flag, v string }{{"--since", opts.Since}, {"--until", opts.Until}} {
				if _, err := time.Parse(time.DateOnly, d.v); d.v != "" && err != nil {
					return usageErrorf("invalid %s %q: give a date as YYYY-MM-DD", d.flag, d.v)
				}
			}
			if opts.Since != "" && opts.Until != "" && opts.Until < opts.Since {
				return usageErrorf("--until %s is before --since %s", opts.Until, opts.Since)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return usageRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.All, "all", false, "every project's sessions")
	fl.BoolVar(&opts.JSON, "json", false, `print one JSON object: {"rows": [...], "totals": {...}}`)
	fl.StringVar(&opts.Since, "since", "", "from this `date` on (YYYY-MM-DD, inclusive)")
	fl.StringVar(&opts.Until, "until", "", "up to this `date` (YYYY-MM-DD, inclusive)")
	return cmd
}

func usageRun(ctx context.Context, f *Factory, opts *UsageOptions) error {
	st, err := f.Store()
	if err != nil {
		return err
	}
	var p *storage.Project
	if !opts.All {
		if p, err = f.Project(); err != nil {
			return err
		}
	}
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	sessions, err := usage.Collect(ctx, st, p)
	if err != nil {
		return err
	}
	rep := usage.Build(sessions, usage.Options{By: opts.By, Since: opts.Since, Until: opts.Until,
		Loc: time.Local, Prices: tokens.NewPrices(cfg.Prices)})
	if opts.JSON {
		return rep.WriteJSON(f.IO.Out)
	}
	return rep.WriteText(f.IO.Out)
}

// todaySpend is the REPL status line's cost of the day, over every
// project's sessions, unless the user's configuration turns it off
// (status_cost = false); nil when it cannot be had.
func todaySpend(f *Factory, eng interface{ Model() string }) *usage.Today {
	cfg, err := f.Config()
	if err != nil || !cfg.StatusCost {
		return nil
	}
	st, err := f.Store()
	if err != nil {
		return nil
	}
	return usage.NewToday(st, tokens.NewPrices(cfg.Prices), eng.Model)
}
