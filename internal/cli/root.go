package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/clawdcode/clawdcode/internal/buildinfo"
	"github.com/clawdcode/clawdcode/internal/config"
	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/tokens"
	"github.com/clawdcode/clawdcode/internal/tools"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Output formats of -p (CONTRACT.md section 1).
const (
	FormatText       = "text"
	FormatJSON       = "json"
	FormatStreamJSON = "stream-json"
)

// Defaults of CONTRACT.md section 1: the threshold is contextmgr's, the
// window the models table's (tokens.WindowFor).
const (
	DefaultModel     = config.DefaultModel
	DefaultThreshold = contextmgr.DefaultThreshold
)

// contractTools are the tools of CONTRACT.md section 3, in the order the
// engine offers them (the rule grammar's list).
var contractTools = tools.RuleTools()

// RootOptions is the root command's resolved invocation: flags, then the
// environment, then the configuration files, then the defaults (resolved
// by internal/config).
type RootOptions struct {
	Print        bool
	OutputFormat string
	Continue     bool
	Resume       string
	ForkSession  bool
	Model        string
	Window       int
	// WindowSource says where Window came from, for messages and
	// /context: "--context-window", "CLAWDCODE_CONTEXT_WINDOW", a
	// configuration file's path, or "the models table". WindowExplicit is
	// set for all but the last: an explicit window wins over one a server
	// taught an earlier run.
	WindowSource   string
	WindowExplicit bool
	Threshold      float64
	// Allow and Deny are the permission rules of the flags and the
	// configuration files.
	Allow, Deny     []tools.Rule
	SkipPermissions bool
	// Mode is --permission-mode, read; Bypass for
	// --dangerously-skip-permissions without it.
	Mode tools.Mode
	// TrustProject (--trust-project) uses the project's config.toml in
	// full for this run, as if its trust question had been answered yes.
	TrustProject bool
	MaxTurns     int
	// Prompt is the positional arguments joined by spaces.
	Prompt string
	// AppendSystemPrompt is added to the end of the system prompt.
	AppendSystemPrompt string
	// AddDirs are more directories the tools may read and write
	// (--add-dir), absolute once resolved.
	AddDirs []string
	// MCPConfig are the --mcp-config values: files or JSON text, each
	// Claude Code's {"mcpServers": {…}}.
	MCPConfig []string
}

// NewCmdRoot builds clawdcode's root command and its subcommands.
func NewCmdRoot(f *Factory) *cobra.Command {
	return newCmdRoot(f, nil)
}

// newCmdRoot lets tests replace the behaviour (runF) to check flag parsing
// and validation alone.
func newCmdRoot(f *Factory, runF func(context.Context, *RootOptions) error) *cobra.Command {
	opts := &RootOptions{}
	raw := &rootFlagValues{}
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
			in := raw.rootFlags(cmd.Flags(), opts)
			// A project file's commands, allow rules, passed-through
			// credentials and endpoint need trust: the REPL asks when a
			// terminal on stdin can answer, whatever stdout is; -p and a
			// piped stdin go by what was answered before, or the flag.
			f.trustFlag, f.trustCanAsk = opts.TrustProject, !opts.Print && f.IO.IsStdinTTY()
			f.trustProject = f.projectTrust(cmd.Context(), f.trustFlag, f.trustCanAsk)
			if err := opts.resolve(f, in); err != nil {
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

	raw.register(cmd, opts)

	cmd.AddCommand(newCmdVersion(f))
	cmd.AddCommand(newCmdCompletion(f))
	cmd.AddCommand(NewCmdSessions(f))
	cmd.AddCommand(NewCmdSearch(f, nil))
	cmd.AddCommand(NewCmdImport(f, nil))
	cmd.AddCommand(NewCmdACP(f, nil))
	cmd.AddCommand(NewCmdSandbox(f, nil))
	cmd.AddCommand(NewCmdSync(f, nil))
	cmd.AddCommand(NewCmdUsage(f, nil))
	return cmd
}

// rootFlagValues are the root command's flags that resolve reads only
// when given, beside those that go straight into RootOptions.
type rootFlagValues struct {
	window         int
	threshold      float64
	allowed        string
	disallowed     string
	permissionMode string
	sandbox        string
}

// register defines the root command's flags and their completions.
func (raw *rootFlagValues) register(cmd *cobra.Command, opts *RootOptions) {
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.BoolVarP(&opts.Print, "print", "p", false, "non-interactive: run the prompt once and print the final answer")
	fl.StringVar(&opts.OutputFormat, "output-format", FormatText, "with -p: text, json or stream-json")
	fl.BoolVarP(&opts.Continue, "continue", "c", false, "continue the most recently updated session of this project")
	fl.StringVarP(&opts.Resume, "resume", "r", "", "resume a session of this project by `id` or unique prefix; without one, pick it from a list")
	fl.Lookup("resume").NoOptDefVal = resumePick
	fl.BoolVar(&opts.ForkSession, "fork-session", false, "with -c or -r: continue in a new session that starts with that session's context")
	raw.registerEngine(cmd, opts)
	_ = cmd.RegisterFlagCompletionFunc("output-format", cobra.FixedCompletions(
		[]string{FormatText, FormatJSON, FormatStreamJSON}, cobra.ShellCompDirectiveNoFileComp))
}

// registerEngine defines the flags of the engine's configuration, which
// the root command and `clawdcode acp` share, and their completions.
func (raw *rootFlagValues) registerEngine(cmd *cobra.Command, opts *RootOptions) {
	fl := cmd.Flags()
	fl.StringVarP(&opts.Model, "model", "m", "", "model `name` sent to the server (env CLAWDCODE_MODEL; default gpt-4o)")
	fl.IntVar(&raw.window, "context-window", 0, "context window in `tokens` (env CLAWDCODE_CONTEXT_WINDOW; default from the model)")
	fl.Float64Var(&raw.threshold, "compact-threshold", DefaultThreshold, "auto-compaction trigger as a `fraction` of the window")
	fl.StringVar(&raw.allowed, "allowed-tools", "", "comma-separated tools or `rules` that run without asking, e.g. Edit,'Bash(go test:*)' (Read,Glob,Grep always may)")
	fl.StringVar(&raw.disallowed, "disallowed-tools", "", "comma-separated tools or `rules` that never run; a deny wins over every allow")
	fl.BoolVar(&opts.SkipPermissions, "dangerously-skip-permissions", false, "every tool runs without asking")
	fl.StringVar(&raw.permissionMode, "permission-mode", "", "`mode` to start in: default (ask), acceptEdits (Write/Edit inside the project run without asking) or plan (read-only tools until a plan is approved); Shift-Tab cycles them in the REPL")
	fl.StringVar(&raw.sandbox, "sandbox", "", "the sandbox the agent's commands run in: read-only, workspace-write (the default) or off")
	fl.BoolVar(&opts.TrustProject, "trust-project", false, "use the project's .clawdcode/config.toml in full (hooks, MCP servers, allow rules, base_url), as if its trust question had been answered yes")
	fl.IntVar(&opts.MaxTurns, "max-turns", 0, "bound on model calls in one -p run (0 = none)")
	fl.StringVar(&opts.AppendSystemPrompt, "append-system-prompt", "", "`text` added at the end of the system prompt")
	fl.StringArrayVar(&opts.AddDirs, "add-dir", nil, "another `directory` the tools may read and change as the project (and the sandbox's commands write); repeat for more")
	fl.StringArrayVar(&opts.MCPConfig, "mcp-config", nil, "MCP servers from a `file or JSON` text in Claude Code's {\"mcpServers\": {…}} form, beside the configured ones; repeat for more")

	_ = cmd.RegisterFlagCompletionFunc("permission-mode", cobra.FixedCompletions(
		[]string{"default", "acceptEdits", "plan"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.MarkFlagDirname("add-dir")
	_ = cmd.RegisterFlagCompletionFunc("sandbox", cobra.FixedCompletions(
		[]string{"read-only", "workspace-write", "off"}, cobra.ShellCompDirectiveNoFileComp))
	for _, name := range []string{"allowed-tools", "disallowed-tools"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(
			contractTools, cobra.ShellCompDirectiveNoFileComp))
	}
}

// rootFlags is what resolve gets of the command line: the flags given.
func (raw *rootFlagValues) rootFlags(flags *pflag.FlagSet, opts *RootOptions) rootFlags {
	in := rootFlags{
		resumeSet: flags.Changed("resume"),
		allowed:   raw.allowed, disallowed: raw.disallowed,
	}
	if flags.Changed("permission-mode") {
		in.permissionMode = &raw.permissionMode
	}
	if flags.Changed("model") {
		in.config.Model = &opts.Model
	}
	if flags.Changed("context-window") {
		in.config.ContextWindow = &raw.window
	}
	if flags.Changed("compact-threshold") {
		in.config.CompactThreshold = &raw.threshold
	}
	if flags.Changed("sandbox") {
		in.config.Sandbox = &raw.sandbox
	}
	return in
}

// resumePick is -r's value when no id follows it: alone, -r opens the
// session picker (the REPL's /resume) on a terminal.
const resumePick = "pick"

// resumeArgs keeps "-r ID" meaning what it always did now that -r's value
// is optional: pflag gives an optional value only to "--resume=ID", so a
// separate word after -r or --resume (anything but another flag) is joined
// to it before parsing. A bare -r, last or before a flag, is left alone
// and gets resumePick. Nothing after "--" is touched; the glued "-rID" of
// a short flag is the one form that no longer names an id.
func resumeArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "-r" || a == "--resume") && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			out = append(out, "--resume="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

// rootFlags is what resolve needs of the command line beyond opts.
type rootFlags struct {
	resumeSet           bool
	allowed, disallowed string
	permissionMode      *string      // nil when not given
	config              config.Flags // model, window, threshold when given
}

// resolve validates the flags and fills what they leave unset from the
// configuration (environment, files, defaults: internal/config decides).
func (o *RootOptions) resolve(f *Factory, in rootFlags) error {
	if !slices.Contains([]string{FormatText, FormatJSON, FormatStreamJSON}, o.OutputFormat) {
		return usageErrorf("invalid --output-format %q: want text, json or stream-json", o.OutputFormat)
	}
	if o.OutputFormat != FormatText && !o.Print {
		return usageErrorf("--output-format %s needs -p", o.OutputFormat)
	}
	// An empty -r is what a script's unset variable gives ("-r $ID"): it
	// names no session, and starting a new one instead would hide that.
	if in.resumeSet && strings.TrimSpace(o.Resume) == "" {
		return usageErrorf("-r/--resume needs a session id, got an empty one")
	}
	if o.Resume == resumePick && o.ForkSession {
		return usageErrorf("--fork-session needs the session's id with -r: clawdcode -r <id> --fork-session")
	}
	if o.Resume == resumePick && (o.Print || !f.IO.Interactive()) {
		return &UsageError{Err: errors.New("-r/--resume without a session id needs a terminal, to pick the session from a list"), Hints: []string{
			"name the session: clawdcode -r <id> (an id's unique prefix will do)",
			"`clawdcode sessions list` lists this project's sessions with their ids; `clawdcode search <words>` finds one by its content",
		}}
	}
	if o.Continue && in.resumeSet {
		return usageErrorf("-c/--continue and -r/--resume cannot be used together")
	}
	if o.ForkSession && !o.Continue && !in.resumeSet {
		return usageErrorf("--fork-session needs -c/--continue or -r/--resume: it forks the session they name")
	}
	if o.MaxTurns < 0 {
		return usageErrorf("invalid --max-turns %d: must be 0 (no bound) or more", o.MaxTurns)
	}
	if err := o.resolveMode(in.permissionMode); err != nil {
		return err
	}
	if err := o.readFlagValues(f, &in); err != nil {
		return err
	}

	cfg, err := f.ResolveConfig(in.config)
	if err != nil {
		return err
	}
	o.Model = cfg.Model
	o.Window, o.WindowSource, o.WindowExplicit = cfg.ContextWindow, cfg.WindowSource, cfg.ContextWindow > 0
	switch {
	case o.Window == 0:
		o.Window, o.WindowSource = tokens.WindowFor(o.Model), "the models table"
	case o.WindowSource == config.SourceFlag:
		o.WindowSource = "--context-window"
	case o.WindowSource == config.SourceEnv:
		o.WindowSource = "CLAWDCODE_CONTEXT_WINDOW"
	}
	o.Threshold = cfg.CompactThreshold
	if o.Threshold == 0 {
		o.Threshold = DefaultThreshold
	}
	o.Allow, o.Deny = cfg.Allow, cfg.Deny
	return nil
}

// readFlagValues reads the flags whose values have a grammar or name
// files: the rules, --mcp-config and --add-dir.
func (o *RootOptions) readFlagValues(f *Factory, in *rootFlags) error {
	var err error
	if in.config.Allow, err = parseRuleFlag("--allowed-tools", in.allowed); err != nil {
		return err
	}
	if in.config.Deny, err = parseRuleFlag("--disallowed-tools", in.disallowed); err != nil {
		return err
	}
	if in.config.MCPServers, err = readMCPConfigs(o.MCPConfig); err != nil {
		return err
	}
	return o.resolveDirs(f)
}

// resolveMode reads --permission-mode (nil when not given) into o.Mode:
// --dangerously-skip-permissions alone starts in bypass.
func (o *RootOptions) resolveMode(flag *string) error {
	o.Mode = tools.ModeDefault
	if flag == nil {
		if o.SkipPermissions {
			o.Mode = tools.ModeBypass
		}
		return nil
	}
	m, err := tools.ParseMode(*flag)
	if err != nil {
		return usageErrorf("invalid --permission-mode %q: want default, acceptEdits or plan", *flag)
	}
	o.Mode = m
	return nil
}

// parseRuleFlag reads --allowed-tools or --disallowed-tools: tools and
// rules (CONTRACT.md §7), so a typo does not silently leave a tool denied
// or allowed.
func parseRuleFlag(flag, list string) ([]tools.Rule, error) {
	rules, err := tools.ParseRules(list)
	if err != nil {
		hints := []string{"a rule is Tool or Tool(specifier), e.g. Edit, 'Bash(go test:*)', 'Bash(npm test)', 'Edit(src/**)'"}
		if errors.Is(err, tools.ErrUnknownTool) {
			hints = append([]string{"known tools: " + strings.Join(tools.RuleTools(), ", ")}, hints...)
		}
		return nil, &UsageError{Err: fmt.Errorf("%w in %s", err, flag), Hints: hints}
	}
	return rules, nil
}
