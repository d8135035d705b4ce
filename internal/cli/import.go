package cli

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/importer"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/spf13/cobra"
)

// ImportOptions are the arguments of `clawdcode import` (CONTRACT.md section 10).
type ImportOptions struct {
	Tool string
	Dir  string
}

// NewCmdImport builds `clawdcode import`; runF replaces the behaviour in tests.
func NewCmdImport(f *Factory, runF func(context.Context, *ImportOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import claude-code|codex [dir]",
		Short: "Bring Claude Code or Codex sessions into clawdcode",
		Long: `Import another tool's sessions. Each becomes a clawdcode session of the
project at its recorded working directory, with the same id, so that
clawdcode -r <id> continues it there. Importing again adds only what is new.

Default directories: claude-code $CLAUDE_CONFIG_DIR/projects, else
~/.claude/projects; codex $CODEX_HOME/sessions, else ~/.codex/sessions.`,
		Example: `  clawdcode import claude-code
  clawdcode import codex ~/backup/codex/sessions`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := &ImportOptions{Tool: args[0]}
			if !slices.Contains(importer.Tools, opts.Tool) {
				return usageErrorf("unknown tool %q: import claude-code or codex", opts.Tool)
			}
			if len(args) == 2 {
				opts.Dir = args[1]
			} else {
				home, err := os.UserHomeDir()
				if err != nil && f.Getenv("CLAUDE_CONFIG_DIR") == "" && f.Getenv("CODEX_HOME") == "" {
					return fmt.Errorf("locate home directory (give the directory to import): %w", err)
				}
				opts.Dir = importer.DefaultDir(opts.Tool, f.Getenv, home)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return importRun(cmd.Context(), f, opts)
		},
	}
	return cmd
}

// progressMin is how much work shows a progress bar on a terminal.
const progressMin = 64 << 20

// importMemoryLimit is the import's soft memory limit (see importRun).
const importMemoryLimit = 256 << 20

func importRun(ctx context.Context, f *Factory, opts *ImportOptions) error {
	st, err := f.Store()
	if err != nil {
		return err
	}
	if fi, err := os.Stat(opts.Dir); err != nil || !fi.IsDir() {
		return &UsageError{
			Err:     fmt.Errorf("import %s: %s: no such directory", opts.Tool, opts.Dir),
			Message: fmt.Sprintf("no %s sessions at %s", opts.Tool, opts.Dir),
			Hints:   []string{"give the directory: clawdcode import " + opts.Tool + " <dir>"},
		}
	}
	if f.Getenv("GOMEMLIMIT") == "" {
		// One huge source line (a 100 MB tool output) is garbage several
		// times over as it is decoded and written again; with the default
		// pacing the heap doubles past what is live before it is
		// collected (840 MiB for a 200 MB line). A soft limit keeps the
		// collector to what is live (500 MiB); an import of ordinary
		// sessions stays far below it and never notices.
		debug.SetMemoryLimit(importMemoryLimit)
	}
	bar := f.IO.IsStderrTTY()
	shown := false
	last := time.Time{}
	im := &importer.Importer{
		Store: st,
		Warn:  warnTo(f.IO.ErrOut),
		Waiting: func() {
			fmt.Fprintln(f.IO.ErrOut, "Another clawdcode import is running in this store; waiting for it to finish…")
		},
		Done: func(r importer.SessionResult) {
			if shown {
				fmt.Fprint(f.IO.ErrOut, "\r\033[K")
			}
			verb := "imported"
			if !r.New {
				verb = "continued"
			}
			// The id and the project come from another tool's files.
			fmt.Fprintf(f.IO.Out, "%s %s  %d records  %s\n", verb, termtext.Line(r.ID), r.Records, termtext.Line(r.Project))
		},
		Progress: func(done, total int64) {
			if !bar || total < progressMin || time.Since(last) < 100*time.Millisecond {
				return
			}
			last = time.Now()
			shown = true
			const width = 30
			n := int(done * width / max(total, 1))
			fmt.Fprintf(f.IO.ErrOut, "\r[%s%s] %3d%%  %d / %d MB", strings.Repeat("#", n), strings.Repeat(".", width-n), done*100/max(total, 1), done>>20, total>>20)
		},
	}
	res, err := im.Import(ctx, opts.Tool, opts.Dir)
	if shown {
		fmt.Fprint(f.IO.ErrOut, "\r\033[K")
	}
	if err != nil {
		return err
	}
	if res.Found == 0 && res.Failed == 0 {
		return noSessions(opts, res.Files)
	}
	recs := 0
	for _, s := range res.Sessions {
		recs += s.Records
	}
	switch {
	case len(res.Sessions) == 0 && res.Failed == 0:
		fmt.Fprintf(f.IO.Out, "Nothing new to import from %s.\n", opts.Dir)
	default:
		fmt.Fprintf(f.IO.Out, "Imported %d %s (%d records) from %s.\n", len(res.Sessions), plural(len(res.Sessions), "session", "sessions"), recs, opts.Dir)
	}
	if res.Failed > 0 {
		return fmt.Errorf("%d %s could not be imported (see the warnings above)", res.Failed, plural(res.Failed, "file", "files"))
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// noSessions is the error of an import from a directory that holds no
// session of the tool: none of its files is one, or it has none where the
// tool keeps them. Nothing was imported, and the user named the wrong
// place (or the wrong tool).
func noSessions(opts *ImportOptions, files int) error {
	layout := map[string]string{
		importer.ClaudeCode: "Claude Code keeps them as <dir>/<project>/<session id>.jsonl (default ~/.claude/projects)",
		importer.Codex:      "Codex keeps them as rollout-*.jsonl under <dir> (default ~/.codex/sessions)",
	}[opts.Tool]
	what := "no file where " + opts.Tool + " keeps its sessions"
	if files > 0 {
		what = fmt.Sprintf("%d %s where %s keeps its sessions, none of them one", files, plural(files, "file", "files"), opts.Tool)
	}
	return &UsageError{
		Err:     fmt.Errorf("import %s: %s: %s", opts.Tool, opts.Dir, what),
		Message: fmt.Sprintf("no %s sessions in %s (%s)", opts.Tool, opts.Dir, what),
		Hints:   []string{layout},
	}
}
