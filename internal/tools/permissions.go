package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Decision is a user's answer to a permission prompt.
type Decision int

const (
	Deny Decision = iota
	AllowOnce
	// AllowAlways allows the call and, for the rest of this session, the
	// calls the rules Propose gives cover (Bash(git status:*), Edit…).
	AllowAlways
	// AllowAlwaysProject is AllowAlways kept for good: the proposed rules
	// are also saved to the project's configuration (PermissionsConfig.Save).
	AllowAlwaysProject
)

// Asker asks the user whether a call may run (a TTY prompt). Nil in -p.
type Asker interface {
	Ask(ctx context.Context, tool Tool, input json.RawMessage) (Decision, error)
}

// A NotingAsker is an Asker whose user, in denying a call, can say what
// the model should do instead: the note goes to the model with the denial.
type NotingAsker interface {
	AskNote(ctx context.Context, tool Tool, input json.RawMessage) (Decision, string, error)
}

// PermissionsConfig is what a Permissions decides from.
type PermissionsConfig struct {
	// Root is the project root: a rule's relative path is relative to it,
	// and an allowance for Write or Edit covers it only.
	Root string
	// Allow and Deny are the rules of the flags and the configuration files.
	Allow, Deny []Rule
	// SkipAll is --dangerously-skip-permissions: ModeBypass can be
	// reached (CycleMode goes through it); without it ModeBypass cannot.
	SkipAll bool
	// Mode is the mode to start in (--permission-mode). With SkipAll, a
	// Mode left at ModeDefault starts in ModeBypass unless ModeGiven says
	// the user chose default: then bypass is only reachable (Shift-Tab).
	Mode      Mode
	ModeGiven bool
	// Asker is the terminal's prompt; nil in -p.
	Asker Asker
	// Save keeps a rule the user chose to allow for good (the project's
	// config file); nil when there is nowhere to save it.
	Save func(Rule) error
	// Warn receives what the user should hear but that denies nothing
	// (a rule that could not be saved); nil drops it.
	Warn func(string)
	// Contained reports whether a Bash command would run contained by the
	// sandbox now (sandbox.Sandbox.Contained); nil: there is no sandbox.
	Contained func() bool
	// Sensitive are places inside the project that a whole-tool allowance
	// does not cover either, as if they were outside it: clawdcode's own
	// settings in the project (.clawdcode/, whose config.toml grants
	// permissions and runs hooks), which a model allowed to Write must not
	// rewrite to allow itself more. The project's .git/ is always such a
	// place (its config and hooks name programs git runs), except that
	// bypass mode covers it.
	Sensitive []string
	// Dirs are more directories Write and Edit treat as the project's
	// (--add-dir): a whole-tool allowance and accept-edits cover them.
	Dirs []string
}

// Permissions is the one place that decides whether a call may run.
//
// Its input is the call, the rules and the current Mode. In order:
//
//  1. A deny rule that covers the call (for Bash: any command of the line,
//     or a line the parse cannot decide)
//     denies it, whatever else allows it — every mode included, bypass
//     too, and for every tool, Read, Glob and Grep too.
//  2. In plan mode a call that does not only read (planAllows: PlanTools,
//     or a Task of a read-only subagent type) is refused, with a result
//     telling the model to hand over its plan (ExitPlanMode).
//  3. Tools that need no permission (Read, Glob, Grep) run.
//  4. Write and Edit of a path outside the project root (symlinks
//     resolved), or in a Sensitive place, need a path rule of their own
//     (Write(/tmp/out/**)) or the user's answer: a whole-tool allowance —
//     Write, "always", accept-edits mode and bypass mode — covers the
//     project only. Without a terminal they are denied.
//  5. Bypass mode (--dangerously-skip-permissions) allows the rest;
//     accept-edits mode allows Write and Edit inside the project, and a
//     Bash command the sandbox contains. A Bash call asked to run outside
//     the sandbox ({"sandbox": false}) is allowed by no mode, bypass
//     included (sandboxAllows).
//  6. An allow rule (flags, configuration, or an "always" of this session)
//     that covers the whole call allows it: for Bash every simple command
//     of the line, as bash parses it, must be covered, and a line the
//     parse cannot decide is covered by the whole-tool rule only.
//  7. Otherwise the Asker is asked; without one the call is denied.
//
// "Always" allows what Propose gives for the call — for Bash a prefix rule
// per simple command (`Bash(git status:*)`), for Edit and Write
// inside the project the tool there, outside it that file — for the
// current session only: ResetSession (a new, switched or resumed session)
// forgets them.
//
// The rule grammar is Rule's. Tools never write under CLAWDCODE_HOME: that
// is the tools' own check (Env.Protect), made before anyone is asked.
//
// A Permissions is safe for concurrent use; the Asker is called without
// holding a lock.
type Permissions struct {
	root      string
	sensitive []string
	repo      string // <root>/.git, resolved: git runs what its config and hooks name
	canBypass bool
	asker     Asker
	save      func(Rule) error
	warn      func(string)
	deny      []Rule
	contained func() bool
	dirs      *addedDirs

	mu      sync.Mutex
	mode    Mode
	allow   []Rule // flags, configuration, and rules saved while running
	session []Rule // "always" answers of the current session
}

// NewPermissions returns the policy of cfg.
func NewPermissions(cfg PermissionsConfig) *Permissions {
	root := ""
	if cfg.Root != "" {
		root = realRoot(cfg.Root)
	}
	var sensitive []string
	for _, d := range cfg.Sensitive {
		sensitive = append(sensitive, realRoot(d))
	}
	repo := ""
	if root != "" {
		repo = realRoot(filepath.Join(root, ".git"))
		sensitive = append(sensitive, repo)
	}
	mode := cfg.Mode
	if cfg.SkipAll && !cfg.ModeGiven && mode == ModeDefault {
		mode = ModeBypass
	}
	return &Permissions{
		root:      root,
		sensitive: sensitive,
		repo:      repo,
		canBypass: cfg.SkipAll || cfg.Mode == ModeBypass,
		mode:      mode,
		asker:     cfg.Asker,
		save:      cfg.Save,
		warn:      cfg.Warn,
		deny:      slices.Clone(cfg.Deny),
		allow:     slices.Clone(cfg.Allow),
		contained: cfg.Contained,
		dirs:      newAddedDirs(cfg.Dirs),
	}
}

// Check returns "" and nil when the call may run; otherwise the denial
// message that becomes the tool result the model sees. An error means the
// Asker failed (e.g. ctx was cancelled while asking); it wraps
// ErrPermissionPrompt.
func (p *Permissions) Check(ctx context.Context, tool Tool, input json.RawMessage) (denied string, err error) {
	name := tool.Name()
	if p == nil {
		if !NeedsPermission(tool, input) {
			return "", nil
		}
		return noPromptDenial(name), nil
	}
	c := newCall(p.root, tool, input)
	for _, r := range p.deny {
		if r.denies(c) {
			return fmt.Sprintf("%s is denied by the rule %s (--disallowed-tools or the [permissions] deny of a config file)%s. "+
				"Do not retry it; take a different approach or ask the user.", tool.Describe(input), r, c.undecided()), nil
		}
	}
	mode := p.Mode()
	if mode == ModePlan && !planAllows(tool, input) {
		return planDenial(tool, input), nil
	}
	if !NeedsPermission(tool, input) {
		return "", nil
	}
	outside := p.needsOwnRule(c)
	if p.allowedByMode(mode, c, input, outside) || p.allowedByRule(c, outside) {
		return "", nil
	}
	if p.asker == nil {
		if outside && !c.outside {
			what := "settings of clawdcode"
			if p.inRepository(c) {
				what = "the repository's own files, whose config and hooks name programs git runs,"
			}
			return fmt.Sprintf("%s was denied: %s (%s) are not covered by an allowance for %s. "+
				"It needs its own rule, e.g. --allowed-tools '%s'.", tool.Describe(input), what, c.target, c.tool,
				Rule{tool: c.tool, glob: c.rel}), nil
		}
		if outside {
			return fmt.Sprintf("%s was denied: outside the project (%s), %s is not covered by an allowance for %s. "+
				"It needs its own rule, e.g. --allowed-tools '%s'.", tool.Describe(input), p.root, c.target, c.tool,
				Rule{tool: c.tool, glob: c.target}), nil
		}
		return p.ruleDenial(c, name), nil
	}
	d, note, err := p.ask(ctx, tool, input)
	if err != nil {
		return "", fmt.Errorf("%w for %s: %w", ErrPermissionPrompt, name, err)
	}
	switch d {
	case AllowOnce:
		return "", nil
	case AllowAlways:
		for _, r := range p.propose(c) {
			p.AddSessionRule(r)
		}
		return "", nil
	case AllowAlwaysProject:
		for _, r := range p.propose(c) {
			p.keep(r)
		}
		return "", nil
	default:
		if note != "" {
			return fmt.Sprintf(userDenial+"%s and said: %s", tool.Describe(input), note), nil
		}
		return fmt.Sprintf(userDenial+"%s. Do not retry the same call; "+
			"ask the user how to proceed or take a different approach.", tool.Describe(input)), nil
	}
}

// userDenial begins every denial the user gave (asked, they said no).
const userDenial = "The user denied permission for "

// IsUserDenial reports whether denied, a Check's denial, is the user's
// answer to a question rather than a rule's or a mode's: the loop then
// runs nothing more of that answer.
func IsUserDenial(denied string) bool { return strings.HasPrefix(denied, userDenial) }

// ask puts the question to the user, with their note on a denial when the
// asker can take one.
func (p *Permissions) ask(ctx context.Context, tool Tool, input json.RawMessage) (Decision, string, error) {
	if n, ok := p.asker.(NotingAsker); ok {
		return n.AskNote(ctx, tool, input)
	}
	d, err := p.asker.Ask(ctx, tool, input)
	return d, "", err
}

// allowedByMode reports whether the mode alone lets the call run.
// Bypass (--dangerously-skip-permissions) is no allowance but the user's
// word that every tool runs (CONTRACT §1): outside the project too. Only
// the project's own settings (.clawdcode/, which grant permissions and run
// hooks in later runs) still need a rule of their own. Accept-edits is an
// allowance for Write and Edit inside the project.
func (p *Permissions) allowedByMode(mode Mode, c callInfo, input json.RawMessage, outside bool) bool {
	if allowed, decided := p.sandboxAllows(mode, c, input); decided {
		return allowed
	}
	switch mode {
	case ModeBypass:
		projectSettings := outside && !c.outside && !p.inRepository(c)
		return !projectSettings
	case ModeAcceptEdits:
		return !outside && (c.tool == NameWrite || c.tool == NameEdit)
	}
	return false
}

// Mode is the current permission mode.
func (p *Permissions) Mode() Mode {
	if p == nil {
		return ModeDefault
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode
}

// SetMode switches to m (the REPL's plan approval); ModeBypass only when
// the run was started with --dangerously-skip-permissions. It reports
// whether the mode is now m.
func (p *Permissions) SetMode(m Mode) bool {
	if p == nil || (m == ModeBypass && !p.canBypass) || m < ModeDefault || m > ModeBypass {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = m
	return true
}

// CycleMode switches to the next mode — default, accept edits, plan, and
// bypass when it can be reached — and returns it (Shift-Tab).
func (p *Permissions) CycleMode() Mode {
	if p == nil {
		return ModeDefault
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	next := p.mode + 1
	if next > ModeBypass || (next == ModeBypass && !p.canBypass) {
		next = ModeDefault
	}
	p.mode = next
	return next
}

// needsOwnRule reports whether the call is a Write or Edit that a
// whole-tool allowance does not cover: outside the project, or in a
// sensitive place inside it.
func (p *Permissions) needsOwnRule(c callInfo) bool {
	if c.target == "" || (c.tool != NameWrite && c.tool != NameEdit) {
		return false
	}
	if p.root != "" && c.outside && !p.dirs.holds(c.target) {
		return true
	}
	_, sensitive := isProtected(p.sensitive, c.target)
	return sensitive
}

// inRepository reports whether a call's target is under the project's
// .git/.
func (p *Permissions) inRepository(c callInfo) bool {
	return p.repo != "" && c.target != "" && underDir(p.repo, c.target)
}

// DeniesRead reports whether a deny rule keeps Read from the file at real
// (a real path, symlinks resolved): what Grep and Glob pass over
// (Env.HideFromSearch).
func (p *Permissions) DeniesRead(real string) bool {
	if p == nil {
		return false
	}
	c := callInfo{tool: NameRead, target: real}
	c.rel, c.outside = relativeTo(p.root, real)
	for _, r := range p.deny {
		if r.tool == NameRead && r.denies(c) {
			return true
		}
	}
	return false
}

// allowedByRule reports whether the allow rules of the configuration and
// the session cover the call: for Bash, every simple command of the line
// must be covered by one of them (not necessarily the same one). For a
// write outside the project only a path rule counts.
func (p *Permissions) allowedByRule(c callInfo, outside bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	rules := make([]Rule, 0, len(p.allow)+len(p.session))
	for _, r := range slices.Concat(p.allow, p.session) {
		if outside && r.wholeTool() {
			continue
		}
		if r.allows(c) {
			return true
		}
		if strings.EqualFold(r.tool, NameBash) && r.words != "" {
			rules = append(rules, r)
		}
	}
	if c.tool != NameBash || c.line == nil || c.line.opaque != "" || len(c.line.cmds) < 2 {
		return false
	}
	for _, cmd := range c.line.cmds {
		if !slices.ContainsFunc(rules, func(r Rule) bool { return r.allowsCmd(cmd) }) {
			return false
		}
	}
	return true
}

// keep adds r for the rest of the process and saves it to the project's
// configuration; when it cannot be saved it still holds for this session.
func (p *Permissions) keep(r Rule) {
	if p.save == nil {
		p.AddSessionRule(r)
		return
	}
	if err := p.save(r); err != nil {
		p.AddSessionRule(r)
		if p.warn != nil {
			p.warn(fmt.Sprintf("rule %s allowed for this session only: %v", r, err))
		}
		return
	}
	p.mu.Lock()
	if !slices.Contains(p.allow, r) {
		p.allow = append(p.allow, r)
	}
	p.mu.Unlock()
}

// Propose returns the rules an "always" for this call would add: for Bash a
// rule per simple command (a prefix of its command word and
// subcommand, `Bash(git status:*)`, or the exact command where a prefix would
// allow more than was asked), for Edit and Write the tool inside the
// project and the file itself outside it, for WebFetch the URL's host
// (`WebFetch(domain:example.com)`), for other tools the tool. It is
// empty when no rule would cover the call (a path a rule cannot spell).
func (p *Permissions) Propose(tool Tool, input json.RawMessage) []Rule {
	root := ""
	if p != nil {
		root = p.root
	}
	c := newCall(root, tool, input)
	if p == nil {
		return proposeFor(c, false)
	}
	return p.propose(c)
}

func (p *Permissions) propose(c callInfo) []Rule {
	return proposeFor(c, p.needsOwnRule(c))
}

// proposeFor: own is a Write or Edit a whole-tool rule does not cover.
func proposeFor(c callInfo, own bool) []Rule {
	switch c.tool {
	case NameBash:
		if c.line == nil || c.line.opaque != "" {
			return nil
		}
		var out []Rule
		for _, cmd := range c.line.cmds {
			if r := proposeBash(cmd); !r.IsZero() && !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
		return out
	case NameWrite, NameEdit:
		if !own || c.target == "" {
			return []Rule{{tool: c.tool}}
		}
		if hasGlobMeta(c.target) || strings.ContainsAny(c.target, "{}(),") {
			return nil
		}
		return []Rule{{tool: c.tool, glob: c.target}}
	case NameWebFetch:
		if c.host != "" {
			return []Rule{{tool: c.tool, domain: c.host}}
		}
	}
	return []Rule{{tool: c.tool}}
}

// AddSessionRule allows what r covers until ResetSession.
func (p *Permissions) AddSessionRule(r Rule) {
	if r.IsZero() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Contains(p.session, r) {
		p.session = append(p.session, r)
	}
}

// ResetSession forgets the session's "always" rules: the engine calls it
// when it starts, switches to or resumes another session.
func (p *Permissions) ResetSession() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.session = nil
	p.mu.Unlock()
}

// ruleDenial is noPromptDenial naming the narrowest rule that would
// allow the call (`--allowed-tools 'Bash(go test:*)'`), when it is not the
// whole tool.
func (p *Permissions) ruleDenial(c callInfo, name string) string {
	if why := c.undecided(); why != "" {
		return fmt.Sprintf("Permission to use %s was denied%s, so only the rule %s allows it: run with --allowed-tools %s or "+
			"--dangerously-skip-permissions, or write the command plainly.", name, why, name, name)
	}
	rules := p.propose(c)
	if len(rules) == 0 || (len(rules) == 1 && rules[0].wholeTool()) {
		return noPromptDenial(name)
	}
	s := make([]string, len(rules))
	for i, r := range rules {
		s[i] = r.String()
	}
	return fmt.Sprintf("Permission to use %s was denied: run with --allowed-tools '%s' (or %s for every call) or "+
		"--dangerously-skip-permissions to allow it.", name, strings.Join(s, ","), name)
}

func noPromptDenial(name string) string {
	return fmt.Sprintf("Permission to use %s was denied: run with --allowed-tools %s or "+
		"--dangerously-skip-permissions to allow it.", name, name)
}

// PermissionSummary is how many rules are in force, for /status.
type PermissionSummary struct {
	Mode                 Mode // the permission mode now
	Interactive          bool // an Asker asks what no rule decides
	Allow, Deny, Session int  // rules: flags and config, deny, this session's "always"
}

// Summary counts the rules in force.
func (p *Permissions) Summary() PermissionSummary {
	p.mu.Lock()
	defer p.mu.Unlock()
	return PermissionSummary{Mode: p.mode, Interactive: p.asker != nil,
		Allow: len(p.allow), Deny: len(p.deny), Session: len(p.session)}
}

// SessionRules are the rules allowed for this session only ("always"
// answers, /permissions add), in the order added.
func (p *Permissions) SessionRules() []Rule {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.session)
}

// RemoveSessionRule forgets a rule of this session; false when it is not
// one.
func (p *Permissions) RemoveSessionRule(r Rule) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.Index(p.session, r)
	if i < 0 {
		return false
	}
	p.session = slices.Delete(p.session, i, i+1)
	return true
}

// SaveRule saves r to the project's configuration (as an "always" for the
// project does) and allows it for the rest of the run.
func (p *Permissions) SaveRule(r Rule) error {
	if p.save == nil {
		return errors.New("there is no project configuration file to save the rule to")
	}
	if err := p.save(r); err != nil {
		return err
	}
	p.mu.Lock()
	if !slices.Contains(p.allow, r) {
		p.allow = append(p.allow, r)
	}
	p.mu.Unlock()
	return nil
}
