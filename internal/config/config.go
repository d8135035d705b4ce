package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/clawdcode/clawdcode/internal/hooks"
	"github.com/clawdcode/clawdcode/internal/tokens"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// Defaults of CONTRACT.md §1 and §7.
const (
	DefaultModel     = "gpt-4o"
	DefaultAPIKeyEnv = "OPENAI_API_KEY"
	DefaultWireAPI   = WireChat
)

// Environment variables that configure clawdcode (CONTRACT.md §1).
const (
	EnvModel   = "CLAWDCODE_MODEL"
	EnvWindow  = "CLAWDCODE_CONTEXT_WINDOW"
	EnvBaseURL = "OPENAI_BASE_URL"
)

// FlagTrustProject is the command-line flag that trusts the project file
// for one run (CONTRACT.md §1), named in the warning about a file that is
// not trusted.
const FlagTrustProject = "--trust-project"

// UserFile and ProjectFile are where the two configuration files live.
func UserFile(home string) string { return filepath.Join(home, "config.toml") }

func ProjectFile(root string) string { return filepath.Join(root, ".clawdcode", "config.toml") }

// Flags are the values given on the command line; nil (or empty) is not
// given.
type Flags struct {
	Model            *string
	ContextWindow    *int
	CompactThreshold *float64
	Allow, Deny      []tools.Rule
	// Sandbox is --sandbox.
	Sandbox *string
	// MCPServers are --mcp-config's servers, beside (and over, by name)
	// the files'.
	MCPServers map[string]MCPServer
}

// Sources of a value, for messages and /context.
const (
	SourceFlag    = "flag"
	SourceEnv     = "environment"
	SourceDefault = "default"
)

// Config is the resolved configuration.
type Config struct {
	Model       string
	ModelSource string // SourceFlag, SourceEnv, a file's path, or SourceDefault

	// BaseURL is the chat-completions endpoint ("" = the client's default);
	// BaseURLSource says where it came from (SourceEnv, a file's path, or
	// SourceDefault).
	BaseURL       string
	BaseURLSource string
	// APIKeyEnv names the variable that holds the API key; APIKey is its
	// value, read from the environment only.
	APIKeyEnv string
	APIKey    string
	WireAPI   string

	// ContextWindow is the window a source set explicitly (0 = none did:
	// the model's default applies); WindowSource says which.
	ContextWindow int
	WindowSource  string
	// CompactThreshold is the threshold a source set (0 = none did).
	CompactThreshold float64
	ThresholdSource  string

	// Allow and Deny gather the rules of every source; Rules are the same
	// rules each with its source, for /permissions.
	Allow, Deny []tools.Rule
	Rules       []SourcedRule

	MCPServers map[string]MCPServer
	// Hooks are every file's hooks, the user's first.
	Hooks []hooks.Hook

	// EnvPassthrough gathers every file's [tools] env_passthrough: the
	// secret-looking variables the user hands to tools' children.
	EnvPassthrough []string

	// StatusCost shows what today's sessions cost in the REPL's status
	// line (status_cost; default true).
	StatusCost bool
	// TelemetryEnabled is the user's file's [telemetry] enabled (a
	// project's file has no say; CLAWDCODE_ENABLE_TELEMETRY overrides it,
	// see telemetry.Read).
	TelemetryEnabled bool
	// Prices are every file's [prices."MODEL"] tables, the project's over
	// the user's; tokens.NewPrices puts them over the built-in table.
	Prices map[string]tokens.Price

	// Sandbox is the [sandbox] table and --sandbox (CONTRACT.md §13).
	Sandbox Sandbox

	// Sync is the user's [sync] table (nil: none); a project's file never
	// sets it (SyncSource is the file it came from).
	Sync       *SyncTable
	SyncSource string

	// Files are the configuration files that were read, user's first.
	Files []string
	// Distrusted are the keys of the project file that were ignored
	// because it is not trusted (TrustProject said no); ProjectAsks says
	// whether it sets any key that needs trust at all.
	Distrusted  []string
	ProjectAsks bool
}

// Sources is everything Resolve reads: the two files' paths (either may
// be missing), the environment and the flags.
type Sources struct {
	UserFile    string
	ProjectFile string
	Getenv      func(string) string
	Flags       Flags
	// Warn receives one line per unknown key; nil drops them.
	Warn func(string)
	// TrustProject decides whether the project file may have the keys
	// File.Asks reports (asked only when it sets some and is not the user
	// file itself); nil trusts it. An untrusted file's other keys still
	// apply; those are ignored with one line to Warn, naming the file and
	// the flag that trusts it (FlagTrustProject).
	TrustProject func(*File) bool
}

// Resolve reads the files and applies the precedence: flags, environment,
// project file, user file, defaults.
func Resolve(src Sources) (*Config, error) {
	getenv := src.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var files []*File
	var distrusted []string
	asks := false
	for _, path := range []string{src.UserFile, src.ProjectFile} {
		if path == "" {
			continue
		}
		f, err := ReadFile(path, src.Warn)
		if err != nil {
			return nil, err
		}
		if f == nil {
			continue
		}
		if path == src.ProjectFile && f.Sync != nil && !sameFile(path, src.UserFile) {
			// Where sessions are sent is the user's choice alone: a
			// repository must not send its users' sessions anywhere,
			// trusted or not.
			f.Sync = nil
			if src.Warn != nil {
				src.Warn(fmt.Sprintf("%s: [sync] is read from the user's config.toml only; ignored here", path))
			}
		}
		if path == src.ProjectFile && !sameFile(path, src.UserFile) && f.Telemetry.Enabled != nil {
			// Telemetry sends what the user does to a collector: a
			// repository can neither turn it on nor off.
			f.Telemetry.Enabled = nil
			if src.Warn != nil {
				src.Warn(fmt.Sprintf("%s: [telemetry] is ignored in a project's file (only your %s turns telemetry on)", path, "config.toml"))
			}
		}
		if path == src.ProjectFile && !sameFile(path, src.UserFile) && len(f.Asks()) > 0 {
			asks = true
			if src.TrustProject != nil && !src.TrustProject(f) {
				distrusted = f.distrust()
				if src.Warn != nil {
					src.Warn(fmt.Sprintf("%s is not trusted: its %s are ignored (%s uses them)", path, strings.Join(distrusted, ", "), FlagTrustProject))
				}
			}
		}
		files = append(files, f)
	}

	c := &Config{
		Model: DefaultModel, ModelSource: SourceDefault, BaseURLSource: SourceDefault,
		APIKeyEnv: DefaultAPIKeyEnv, WireAPI: DefaultWireAPI,
		MCPServers: map[string]MCPServer{}, Prices: map[string]tokens.Price{},
		Distrusted: distrusted, ProjectAsks: asks, StatusCost: true,
	}
	// Files in rising precedence: the project's overrides the user's.
	for _, f := range files {
		c.apply(f)
		c.applySandbox(f, f.Path == src.ProjectFile && !sameFile(f.Path, src.UserFile), src.Warn)
	}

	if err := c.applyEnv(getenv); err != nil {
		return nil, err
	}
	if err := c.applyFlags(src.Flags); err != nil {
		return nil, err
	}
	c.APIKey = strings.TrimSpace(getenv(c.APIKeyEnv))
	return c, nil
}

// applyEnv lays the environment's settings over the files'.
func (c *Config) applyEnv(getenv func(string) string) error {
	if v := strings.TrimSpace(getenv(EnvModel)); v != "" {
		c.Model, c.ModelSource = v, SourceEnv
	}
	if v := strings.TrimSpace(getenv(EnvBaseURL)); v != "" {
		c.BaseURL, c.BaseURLSource = v, SourceEnv
	}
	if v := strings.TrimSpace(getenv(EnvWindow)); v != "" {
		n, err := strconv.Atoi(v)
		if err == nil {
			err = CheckWindow(n)
		}
		if err != nil {
			return invalidf("invalid %s %q: must be a positive number of tokens", EnvWindow, v)
		}
		c.ContextWindow, c.WindowSource = n, SourceEnv
	}
	return nil
}

// applyFlags lays the flags over everything else.
func (c *Config) applyFlags(fl Flags) error {
	if fl.Model != nil {
		m := strings.TrimSpace(*fl.Model)
		if m == "" {
			return invalidf("--model needs a model name")
		}
		c.Model, c.ModelSource = m, SourceFlag
	}
	if fl.ContextWindow != nil {
		if err := CheckWindow(*fl.ContextWindow); err != nil {
			return invalidf("invalid --context-window %d: must be a positive number of tokens", *fl.ContextWindow)
		}
		c.ContextWindow, c.WindowSource = *fl.ContextWindow, SourceFlag
	}
	if fl.CompactThreshold != nil {
		if err := CheckThreshold(*fl.CompactThreshold); err != nil {
			return invalidf("invalid --compact-threshold %v: must be in (0, 1]", *fl.CompactThreshold)
		}
		c.CompactThreshold, c.ThresholdSource = *fl.CompactThreshold, SourceFlag
	}
	c.Allow = append(c.Allow, fl.Allow...)
	c.Deny = append(c.Deny, fl.Deny...)
	c.addRules(fl.Allow, fl.Deny, SourceFlag)
	maps.Copy(c.MCPServers, fl.MCPServers)
	return c.applySandboxFlag(fl.Sandbox)
}

// apply lays f's keys over c (a later file's over an earlier one's).
func (c *Config) apply(f *File) {
	c.Files = append(c.Files, f.Path)
	if f.Model != nil {
		c.Model, c.ModelSource = strings.TrimSpace(*f.Model), f.Path
	}
	if f.BaseURL != nil {
		c.BaseURL, c.BaseURLSource = strings.TrimSpace(*f.BaseURL), f.Path
	}
	if f.APIKeyEnv != nil {
		c.APIKeyEnv = *f.APIKeyEnv
	}
	if f.WireAPI != nil {
		c.WireAPI = *f.WireAPI
	}
	if f.ContextWindow != nil {
		c.ContextWindow, c.WindowSource = *f.ContextWindow, f.Path
	}
	if f.CompactThreshold != nil {
		c.CompactThreshold, c.ThresholdSource = *f.CompactThreshold, f.Path
	}
	c.Allow = append(c.Allow, f.Permissions.Allow...)
	c.Deny = append(c.Deny, f.Permissions.Deny...)
	c.addRules(f.Permissions.Allow, f.Permissions.Deny, f.Path)
	maps.Copy(c.MCPServers, f.MCPServers)
	for _, event := range slices.Sorted(maps.Keys(f.Hooks)) {
		for _, h := range f.Hooks[event] {
			c.Hooks = append(c.Hooks, h.hook(event))
		}
	}
	c.EnvPassthrough = append(c.EnvPassthrough, f.Tools.EnvPassthrough...)
	if f.Telemetry.Enabled != nil {
		c.TelemetryEnabled = *f.Telemetry.Enabled
	}
	if f.StatusCost != nil {
		c.StatusCost = *f.StatusCost
	}
	for name, e := range f.Prices {
		c.Prices[strings.TrimSpace(name)] = e.Price()
	}
	if f.Sync != nil {
		c.Sync, c.SyncSource = f.Sync, f.Path
	}
}

// sameFile reports whether a and b name one path (a project whose root is
// the directory holding CLAWDCODE_HOME's config.toml: the user's own file).
func sameFile(a, b string) bool {
	return b != "" && filepath.Clean(a) == filepath.Clean(b)
}
