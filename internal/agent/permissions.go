package agent

import (
	"errors"

	"github.com/clawdcode/clawdcode/internal/tools"
)

// Permissions is the engine's part that reads and changes the permission
// policy its tools are checked by (Config.Permissions): the mode
// (Shift-Tab in the REPL, an editor's mode menu), the rules of this
// session, a rule saved to the project. What a mode or a rule allows is
// the policy's (tools.Permissions) alone. Without a policy (nil) nothing
// that needs permission may run, the mode stays default and no rule can
// be added. A plan the model hands over in plan mode is put to the user
// by the front end's PlanApprover (plan.go).
type Permissions struct {
	p     *tools.Permissions
	plans PlanApprover
}

// Summary is the policy in force, counted (/status).
func (p *Permissions) Summary() tools.PermissionSummary {
	if p.p == nil {
		return tools.PermissionSummary{}
	}
	return p.p.Summary()
}

// Mode is the current permission mode.
func (p *Permissions) Mode() tools.Mode { return p.p.Mode() }

// SetMode switches to m; it reports whether the mode is now m (bypass only
// when the run was started with --dangerously-skip-permissions).
func (p *Permissions) SetMode(m tools.Mode) bool { return p.p.SetMode(m) }

// CycleMode switches to the next mode and returns it.
func (p *Permissions) CycleMode() tools.Mode { return p.p.CycleMode() }

// SessionRules are the rules allowed for this session only.
func (p *Permissions) SessionRules() []tools.Rule {
	if p.p == nil {
		return nil
	}
	return p.p.SessionRules()
}

// AddSessionRule allows r until the session changes.
func (p *Permissions) AddSessionRule(r tools.Rule) {
	if p.p != nil {
		p.p.AddSessionRule(r)
	}
}

// RemoveSessionRule forgets one of this session's rules.
func (p *Permissions) RemoveSessionRule(r tools.Rule) bool {
	return p.p != nil && p.p.RemoveSessionRule(r)
}

// SaveProjectRule saves r to the project's config file and allows it.
func (p *Permissions) SaveProjectRule(r tools.Rule) error {
	if p.p == nil {
		return errors.New("no permission policy to add the rule to")
	}
	return p.p.SaveRule(r)
}
