package agent

import (
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
	UserFile, ProjectFile string
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
