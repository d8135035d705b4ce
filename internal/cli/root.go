package cli

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/clawdcode/clawdcode/internal/buildinfo"
	"github.com/spf13/cobra"
)

// Output formats of -p (CONTRACT.md section 1).
const (
	FormatText       = "text"
	FormatJSON       = "json"
	FormatStreamJSON = "stream-json"
)

// Defaults of CONTRACT.md section 1.
const (
	DefaultModel     = "gpt-4o"
	DefaultThreshold = 0.8
)

// contractTools are the tools of CONTRACT.md section 3, the only names
// --allowed-tools accepts.
var contractTools = []string{"Read", "Write", "Edit", "Bash", "Glob", "Grep", "Recall"}

// RootOptions is the root command's resolved invocation: flags, then the
// environment, then the defaults.
type RootOptions struct {
	Print           bool
	OutputFormat    string
	Continue        bool
	Resume          string
	ForkSession     bool
	Model           string
	Window          int
	Threshold       float64
	AllowedTools    []string
	SkipPermissions bool
	MaxTurns        int
	// Prompt is the positional arguments joined by spaces.
	Prompt string
}

// NewCmdRoot builds clawdcode's root command and its subcommands.
func NewCmdRoot(f *Factory) *cobra.Command {
	return newCmdRoot(f, nil)
}

// newCmdRoot lets tests replace the behaviour (runF) to check flag parsing
// and validation alone.
func newCmdRoot(f *Factory, runF func(context.Context, *RootOptions) error) *cobra.Command {
	opts := &RootOptions{}
	var (
		windowFlag   int
		allowedTools string
	)
	cmd := &cobra.Command{
		Use:   "clawdcode [flags] [prompt]",
		Short: "A coding agent for any OpenAI-compatible server",
		Long: `clawdcode is a coding agent that talks to any OpenAI-compatible
chat-completions server. Without -p it opens an interactive session; the
prompt, if given, is its first message. With -p it runs the agent loop once
and prints the final answer.

Endpoint: OPENAI_BASE_URL (default https://api.openai.com/v1), OPENAI_API_KEY.
Sessions live under CLAWDCODE_HOME (default ~/.clawdcode).`,
		Example: `  clawdcode
  clawdcode -p "explain main.go"
  git diff | clawdcode -p "review this diff" --output-format json
  clawdcode -c -p "/compact"`,
		Version:       buildinfo.Version,
		Args:          cobra.ArbitraryArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		// misspeltCommand's edit distance (cobra's own default).
		SuggestionsMinimumDistance: 2,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := misspeltCommand(cmd, args); err != nil {
				return err
			}
			opts.Prompt = strings.Join(args, " ")
			flags := cmd.Flags()
			if err := opts.resolve(f.Getenv, flags.Changed("model"), flags.Changed("resume"), flags.Changed("context-window"), windowFlag, allowedTools); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			if opts.Print {
				return printRun(cmd.Context(), f, opts)
			}
			return replRun(cmd.Context(), f, opts)
		},
	}
	cmd.SetVersionTemplate("clawdcode {{.Version}}\n")
	cmd.SetOut(f.IO.Out)
	cmd.SetErr(f.IO.ErrOut)
	cmd.SetIn(f.IO.In)
	cmd.CompletionOptions.DisableDefaultCmd = true
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &flagError{err: err, cmd: c}
	})

	fl := cmd.Flags()
	fl.SortFlags = false
	fl.BoolVarP(&opts.Print, "print", "p", false, "non-interactive: run the prompt once and print the final answer")
	fl.StringVar(&opts.OutputFormat, "output-format", FormatText, "with -p: text, json or stream-json")
	fl.BoolVarP(&opts.Continue, "continue", "c", false, "continue the most recently updated session of this project")
	fl.StringVarP(&opts.Resume, "resume", "r", "", "resume a session of this project by `id` or unique prefix")
	fl.BoolVar(&opts.ForkSession, "fork-session", false, "with -c or -r: continue in a new session that starts with that session's context")
	fl.StringVarP(&opts.Model, "model", "m", "", "model `name` sent to the server (env CLAWDCODE_MODEL; default gpt-4o)")
	fl.IntVar(&windowFlag, "context-window", 0, "context window in `tokens` (env CLAWDCODE_CONTEXT_WINDOW; default from the model)")
	fl.Float64Var(&opts.Threshold, "compact-threshold", DefaultThreshold, "auto-compaction trigger as a `fraction` of the window")
	fl.StringVar(&allowedTools, "allowed-tools", "", "comma-separated `tools` that run without asking (Read,Glob,Grep always may)")
	fl.BoolVar(&opts.SkipPermissions, "dangerously-skip-permissions", false, "every tool runs without asking")
	fl.IntVar(&opts.MaxTurns, "max-turns", 0, "bound on model calls in one -p run (0 = none)")

	_ = cmd.RegisterFlagCompletionFunc("output-format", cobra.FixedCompletions(
		[]string{FormatText, FormatJSON, FormatStreamJSON}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("allowed-tools", cobra.FixedCompletions(
		contractTools, cobra.ShellCompDirectiveNoFileComp))

	cmd.AddCommand(newCmdVersion(f))
	cmd.AddCommand(newCmdCompletion(f))
	cmd.AddCommand(NewCmdSessions(f))
	cmd.AddCommand(NewCmdSearch(f, nil))
	return cmd
}

// resolve validates the flags and fills what they leave unset from the
// environment and the defaults.
func (o *RootOptions) resolve(getenv func(string) string, modelSet, resumeSet, windowSet bool, windowFlag int, allowedTools string) error {
	if !slices.Contains([]string{FormatText, FormatJSON, FormatStreamJSON}, o.OutputFormat) {
		return usageErrorf("invalid --output-format %q: want text, json or stream-json", o.OutputFormat)
	}
	if o.OutputFormat != FormatText && !o.Print {
		return usageErrorf("--output-format %s needs -p", o.OutputFormat)
	}
	// An empty -r is what a script's unset variable gives ("-r $ID"): it
	// names no session, and starting a new one instead would hide that.
	if resumeSet && strings.TrimSpace(o.Resume) == "" {
		return usageErrorf("-r/--resume needs a session id, got an empty one")
	}
	if o.Continue && resumeSet {
		return usageErrorf("-c/--continue and -r/--resume cannot be used together")
	}
	if o.ForkSession && !o.Continue && !resumeSet {
		return usageErrorf("--fork-session needs -c/--continue or -r/--resume: it forks the session they name")
	}

	if !modelSet {
		o.Model = strings.TrimSpace(getenv("CLAWDCODE_MODEL"))
	}
	o.Model = strings.TrimSpace(o.Model)
	if o.Model == "" {
		if modelSet {
			return usageErrorf("--model needs a model name")
		}
		o.Model = DefaultModel
	}

	switch {
	case windowSet:
		if windowFlag <= 0 {
			return usageErrorf("invalid --context-window %d: must be a positive number of tokens", windowFlag)
		}
		o.Window = windowFlag
	case strings.TrimSpace(getenv("CLAWDCODE_CONTEXT_WINDOW")) != "":
		v := strings.TrimSpace(getenv("CLAWDCODE_CONTEXT_WINDOW"))
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return usageErrorf("invalid CLAWDCODE_CONTEXT_WINDOW %q: must be a positive number of tokens", v)
		}
		o.Window = n
	default:
		o.Window = DefaultWindow(o.Model)
	}

	if !(o.Threshold > 0 && o.Threshold <= 1) {
		return usageErrorf("invalid --compact-threshold %v: must be in (0, 1]", o.Threshold)
	}
	if o.MaxTurns < 0 {
		return usageErrorf("invalid --max-turns %d: must be 0 (no bound) or more", o.MaxTurns)
	}

	tools, err := parseAllowedTools(allowedTools)
	if err != nil {
		return err
	}
	o.AllowedTools = tools
	return nil
}

// parseAllowedTools splits a comma list and checks each name against the
// contract's tools, so a typo does not silently leave a tool denied.
func parseAllowedTools(list string) ([]string, error) {
	var out []string
	for name := range strings.SplitSeq(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		i := slices.IndexFunc(contractTools, func(t string) bool { return strings.EqualFold(t, name) })
		if i < 0 {
			return nil, &UsageError{
				Err:   fmt.Errorf("unknown tool %q in --allowed-tools", name),
				Hints: []string{"known tools: " + strings.Join(contractTools, ", ")},
			}
		}
		if !slices.Contains(out, contractTools[i]) {
			out = append(out, contractTools[i])
		}
	}
	return out, nil
}
