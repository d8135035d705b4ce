package agent

import (
	"errors"

	"github.com/clawdcode/clawdcode/internal/config"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// About is what the front end knows of the run and the engine only shows
// (/status, /config): where requests go, where the log is written, the
// configuration.
type About struct {
	BaseURL string // the server's base URL (never the key)
	LogFile string // "" when logging is off (CLAWDCODE_LOG unset)
	// Settings are the effective configuration, key by key, with where
	// each came from; UserFile and ProjectFile the two files' paths
	// (either may not exist) (/config).
	Settings              []config.Setting
	Rules                 []config.SourcedRule // flags' and files' (/permissions)
	UserFile, ProjectFile string
	// Sandbox says which sandbox commands run in and why (/status); nil
	// when there is none.
	Sandbox func() string
}

// About is the run's About, as the front end gave it.
func (e *Engine) About() About { return e.cfg.About }

// WindowSource says where the context window came from (a flag, the
// environment, a config file, the server, or the models table).
func (e *Engine) WindowSource() string { return e.cfg.WindowSource }

// Permissions is the permission policy in force (nil: nothing that needs
// permission may run).
func (e *Engine) Permissions() tools.PermissionSummary {
	if e.cfg.Permissions == nil {
		return tools.PermissionSummary{}
	}
	return e.cfg.Permissions.Summary()
}

// SessionRules are the rules allowed for this session only.
func (e *Engine) SessionRules() []tools.Rule {
	if e.cfg.Permissions == nil {
		return nil
	}
	return e.cfg.Permissions.SessionRules()
}

// AddSessionRule allows r until the session changes.
func (e *Engine) AddSessionRule(r tools.Rule) {
	if e.cfg.Permissions != nil {
		e.cfg.Permissions.AddSessionRule(r)
	}
}

// RemoveSessionRule forgets one of this session's rules.
func (e *Engine) RemoveSessionRule(r tools.Rule) bool {
	return e.cfg.Permissions != nil && e.cfg.Permissions.RemoveSessionRule(r)
}

// SaveProjectRule saves r to the project's config file and allows it.
func (e *Engine) SaveProjectRule(r tools.Rule) error {
	if e.cfg.Permissions == nil {
		return errors.New("no permission policy to add the rule to")
	}
	return e.cfg.Permissions.SaveRule(r)
}
