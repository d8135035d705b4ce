package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// Decision is a user's answer to a permission prompt.
type Decision int

const (
	Deny Decision = iota
	AllowOnce
	AllowAlways // for the rest of this session
)

// Asker asks the user whether a call may run (a TTY prompt). Nil in -p.
type Asker interface {
	Ask(ctx context.Context, tool Tool, input json.RawMessage) (Decision, error)
}

// Permissions is the one place that decides whether a call may run.
//
// A call runs when its tool needs no permission (Read, Glob, Grep), when
// every tool is allowed (--dangerously-skip-permissions), when an
// --allowed-tools rule matches, when the user said "always" for the tool
// earlier in this session, or when the Asker says yes. Otherwise it is
// denied with a message for the model.
//
// Rules (--allowed-tools entries, separated by commas or spaces outside
// parentheses; tool names are case-insensitive):
//
//	Write              every Write call
//	Bash               every Bash call
//	Bash(git status)   exactly that command
//	Bash(go test:*)    "go test" alone or followed by a space and arguments, as
//	                   long as the command has no shell operators
//	                   (; & | < > ` $( or a newline) that could chain
//	                   another command onto the allowed one
//	Edit(*)            same as Edit
//
// Argument patterns for tools other than Bash are not supported and never
// match. "Always" grants cover the whole tool for the session.
//
// A Permissions is safe for concurrent use; the Asker is called without
// holding a lock.
type Permissions struct {
	skipAll bool
	asker   Asker
	rules   []rule

	mu     sync.Mutex
	always map[string]bool // lower-cased tool names
}

type rule struct {
	tool    string // lower-cased
	any     bool   // every call of tool
	command string // Bash: the exact command, or the prefix
	prefix  bool
}

// NewPermissions: allowed are tool names from --allowed-tools, skipAll is
// --dangerously-skip-permissions, asker is nil when not on a TTY.
func NewPermissions(allowed []string, skipAll bool, asker Asker) *Permissions {
	p := &Permissions{skipAll: skipAll, asker: asker, always: make(map[string]bool)}
	for _, entry := range allowed {
		for _, spec := range splitRules(entry) {
			if r, ok := parseRule(spec); ok {
				p.rules = append(p.rules, r)
			}
		}
	}
	return p
}

// splitRules splits on commas and spaces outside parentheses, so
// "Bash(go test:*),Edit" and "Bash(go test:*) Edit" both give two rules.
func splitRules(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch s[i] {
			case '(':
				depth++
				continue
			case ')':
				depth = max(0, depth-1)
				continue
			case ',', ' ', '\t':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		if part := strings.TrimSpace(s[start:i]); part != "" {
			out = append(out, part)
		}
		start = i + 1
	}
	return out
}

func parseRule(spec string) (rule, bool) {
	name, arg, hasArg := strings.Cut(spec, "(")
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return rule{}, false
	}
	if !hasArg {
		return rule{tool: name, any: true}, true
	}
	arg = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(arg), ")"))
	switch {
	case arg == "" || arg == "*":
		return rule{tool: name, any: true}, true
	case name != strings.ToLower(NameBash):
		return rule{}, false
	case strings.HasSuffix(arg, ":*"):
		return rule{tool: name, command: strings.TrimSpace(strings.TrimSuffix(arg, ":*")), prefix: true}, true
	default:
		return rule{tool: name, command: arg}, true
	}
}

// shellOperators could chain a second command onto one a prefix rule allows.
const shellOperators = ";&|<>`\n"

func (r rule) matches(tool Tool, input json.RawMessage) bool {
	if r.tool != strings.ToLower(tool.Name()) {
		return false
	}
	if r.any {
		return true
	}
	a, err := parseArgs(input)
	if err != nil {
		return false
	}
	command, err := a.requiredString("command")
	if err != nil {
		return false
	}
	command = strings.TrimSpace(command)
	if !r.prefix {
		return command == r.command
	}
	if strings.ContainsAny(command, shellOperators) || strings.Contains(command, "$(") {
		return false
	}
	return command == r.command || strings.HasPrefix(command, r.command+" ")
}

// Check returns "" and nil when the call may run; otherwise the denial
// message that becomes the tool result the model sees. An error means the
// Asker failed (e.g. ctx was cancelled while asking); it wraps
// ErrPermissionPrompt.
func (p *Permissions) Check(ctx context.Context, tool Tool, input json.RawMessage) (denied string, err error) {
	if !NeedsPermission(tool, input) {
		return "", nil
	}
	name := tool.Name()
	if p == nil {
		return noPromptDenial(name), nil
	}
	if p.skipAll {
		return "", nil
	}
	for _, r := range p.rules {
		if r.matches(tool, input) {
			return "", nil
		}
	}
	key := strings.ToLower(name)
	p.mu.Lock()
	granted := p.always[key]
	p.mu.Unlock()
	if granted {
		return "", nil
	}
	if p.asker == nil {
		return noPromptDenial(name), nil
	}
	d, err := p.asker.Ask(ctx, tool, input)
	if err != nil {
		return "", fmt.Errorf("%w for %s: %w", ErrPermissionPrompt, name, err)
	}
	switch d {
	case AllowOnce:
		return "", nil
	case AllowAlways:
		p.mu.Lock()
		p.always[key] = true
		p.mu.Unlock()
		return "", nil
	default:
		return fmt.Sprintf("The user denied permission for %s. Do not retry the same call; "+
			"ask the user how to proceed or take a different approach.", tool.Describe(input)), nil
	}
}

func noPromptDenial(name string) string {
	return fmt.Sprintf("Permission to use %s was denied: run with --allowed-tools %s or "+
		"--dangerously-skip-permissions to allow it.", name, name)
}
