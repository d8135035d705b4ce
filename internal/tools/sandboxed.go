package tools

import (
	"encoding/json"
	"os"
	"strings"

	"github.com/clawdcode/clawdcode/internal/sandbox"
)

// ShellSandbox runs the Bash tool's commands (internal/sandbox's
// Sandbox): inside the sandbox, or outside it when asked.
type ShellSandbox interface {
	Start(sandbox.Command) (*sandbox.Process, error)
}

var _ ShellSandbox = (*sandbox.Sandbox)(nil)

// notes are the lines the sandbox adds to a command's result for what it
// refused (none outside a sandbox).
func (p *process) notes(output string) []string {
	if p.sb == nil {
		return nil
	}
	return p.sb.Notes(output)
}

// withNotes ends text with the sandbox's notes, one per line.
func withNotes(text string, notes []string) string {
	if len(notes) == 0 {
		return text
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + strings.Join(notes, "\n")
}

// bashOutside reports whether a Bash call asks to run outside the
// sandbox (Bash {"sandbox": false}).
func bashOutside(input json.RawMessage) bool {
	var p struct {
		Sandbox *bool `json:"sandbox"`
	}
	return json.Unmarshal(input, &p) == nil && p.Sandbox != nil && !*p.Sandbox
}

// sandboxAllows is the sandbox's part of the policy (CONTRACT §13), for
// Bash calls in a mode: a command the sandbox contains runs without
// asking in accept-edits mode; one asked to run outside it
// ({"sandbox": false}) is never allowed by a mode, bypass included — only
// a rule or the user's answer lets it run. decided is false for every
// other call, which the mode alone decides.
func (p *Permissions) sandboxAllows(mode Mode, c callInfo, input json.RawMessage) (allowed, decided bool) {
	if c.tool != NameBash {
		return false, false
	}
	if bashOutside(input) {
		return false, true
	}
	if mode == ModeAcceptEdits {
		return p.contained != nil && p.contained(), true
	}
	return false, false
}

// AllowsHost reports whether the rules allow WebFetch of host
// (WebFetch(domain:host), this session's included) and none denies it:
// the sandbox's proxy lets commands reach such a host.
func (p *Permissions) AllowsHost(host string) bool {
	match := func(rules []Rule) bool {
		for _, r := range rules {
			if r.tool == NameWebFetch && r.domain != "" && strings.EqualFold(r.domain, host) {
				return true
			}
		}
		return false
	}
	if match(p.deny) {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return match(p.allow) || match(p.session)
}

// DeniesHost reports whether a rule denies WebFetch of host: the
// sandbox's proxy refuses it too, whatever allows it.
func (p *Permissions) DeniesHost(host string) bool {
	for _, r := range p.deny {
		if r.tool == NameWebFetch && (r.domain == "" || strings.EqualFold(r.domain, host)) {
			return true
		}
	}
	return false
}

// CommandEnv is the environment Bash's commands get (commandEnv), for
// `clawdcode sandbox`, which runs a command as the agent's would run.
func (e *Env) CommandEnv() []string { return e.commandEnv(os.Environ()) }
