package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clawdcode/clawdcode/internal/sandbox"
)

// SandboxFile is a file's [sandbox] table (CONTRACT.md §13).
type SandboxFile struct {
	Mode         *string  `toml:"mode"`
	Network      *bool    `toml:"network"`
	AllowDomains []string `toml:"allow_domains"`
	Writable     []string `toml:"writable"`
	DenyRead     []string `toml:"deny_read"`
}

// Sandbox is the resolved sandbox: its mode and where that came from
// (SourceFlag, a file's path, SourceDefault), and the other keys with
// the paths as written (sandbox.Resolve makes them absolute: "~/" is the
// user's home, a relative path the project root's).
type Sandbox struct {
	Mode                             sandbox.Mode
	ModeSource                       string
	Network                          bool
	AllowDomains, Writable, DenyRead []string
}

// checkSandbox holds the [sandbox] table to a known mode and non-empty
// entries.
func (f *File) checkSandbox(bad func(key, format string, args ...any) error) error {
	s := f.Sandbox
	if s.Mode != nil {
		if _, err := sandbox.ParseMode(*s.Mode); err != nil {
			return bad("sandbox.mode", "%v", err)
		}
	}
	for key, list := range map[string][]string{"allow_domains": s.AllowDomains, "writable": s.Writable, "deny_read": s.DenyRead} {
		for _, v := range list {
			if strings.TrimSpace(v) == "" || (key == "allow_domains" && strings.ContainsAny(v, "/ :")) {
				return bad("sandbox."+key, "%q is not a %s", v, map[bool]string{true: "host name", false: "path"}[key == "allow_domains"])
			}
		}
	}
	return nil
}

// applySandbox lays f's [sandbox] over c's. The user's file sets what it
// likes; a project's file comes with the repository and may only narrow
// the sandbox (a stricter mode, no network, more denied reads): what
// would widen it is ignored, with one warning line.
func (c *Config) applySandbox(f *File, project bool, warn func(string)) {
	s := f.Sandbox
	var ignored []string
	if s.Mode != nil {
		m, _ := sandbox.ParseMode(*s.Mode)
		if !project || m.Strictness() >= c.Sandbox.Mode.Strictness() {
			c.Sandbox.Mode, c.Sandbox.ModeSource = m, f.Path
		} else {
			ignored = append(ignored, "mode = "+m.String())
		}
	}
	if s.Network != nil {
		if !project || !*s.Network || c.Sandbox.Network {
			c.Sandbox.Network = *s.Network
		} else {
			ignored = append(ignored, "network = true")
		}
	}
	widen := func(key string, have *[]string, add []string) {
		for _, v := range add {
			switch {
			case slices.Contains(*have, v):
			case project:
				ignored = append(ignored, fmt.Sprintf("%s %q", key, v))
			default:
				*have = append(*have, v)
			}
		}
	}
	widen("allow_domains", &c.Sandbox.AllowDomains, s.AllowDomains)
	widen("writable", &c.Sandbox.Writable, s.Writable)
	c.Sandbox.DenyRead = append(c.Sandbox.DenyRead, s.DenyRead...)
	if len(ignored) > 0 && warn != nil {
		warn(fmt.Sprintf("%s: [sandbox] %s ignored: a project's file may narrow the sandbox, never widen it",
			f.Path, strings.Join(ignored, ", ")))
	}
}

// applySandboxFlag lays --sandbox over everything: the user's own word.
func (c *Config) applySandboxFlag(v *string) error {
	if v == nil {
		return nil
	}
	m, err := sandbox.ParseMode(*v)
	if err != nil {
		return invalidf("invalid --sandbox: %v", err)
	}
	c.Sandbox.Mode, c.Sandbox.ModeSource = m, "--sandbox"
	return nil
}

// sandboxSettings are the [sandbox] lines of /config.
func (c *Config) sandboxSettings(files string) []Setting {
	list := func(l []string) string { return orValue(strings.Join(l, ", "), "none") }
	return []Setting{
		{"sandbox.mode", c.Sandbox.Mode.String(), orDefault(c.Sandbox.ModeSource)},
		{"sandbox.network", fmt.Sprint(c.Sandbox.Network), files},
		{"sandbox.allow_domains", list(c.Sandbox.AllowDomains), files},
		{"sandbox.writable", list(c.Sandbox.Writable), files},
		{"sandbox.deny_read", list(c.Sandbox.DenyRead), files},
	}
}
