package agent

import (
	"context"

	"github.com/clawdcode/clawdcode/internal/config"
	"github.com/clawdcode/clawdcode/internal/llm"
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
	// when there is none. Contained says whether a command started now is
	// contained by it (/doctor).
	Sandbox   func() string
	Contained func() bool
	// CheckServer asks the server whether it speaks the API and lists the
	// model (/doctor); nil: not checked.
	CheckServer func(ctx context.Context, model string) llm.ServerCheck
	// Trust says whether the project's settings that need trust are in
	// force, and if not which are ignored and how to trust them (/doctor).
	Trust Check
}

// Check is one line of /doctor: whether it is fine, what it is, and what
// to do when it is not.
type Check struct {
	OK         bool
	Text, Hint string
}
