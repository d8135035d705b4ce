package agent

import (
	"github.com/clawdcode/clawdcode/internal/config"
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
