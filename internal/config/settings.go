package config

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/clawdcode/clawdcode/internal/tools"
)

// Setting is one key of the effective configuration, for /config: its
// value as shown and where it came from (SourceFlag, SourceEnv, a file's
// path, SourceDefault, or the files that add to a list).
type Setting struct {
	Key, Value, Source string
}

// Settings lists the effective configuration key by key. The API key's
// value is never among them, only the variable that holds it.
func (c *Config) Settings() []Setting {
	files, rules := strings.Join(c.Files, ", "), SourceFlag+"s"
	if files == "" {
		files = SourceDefault
	} else {
		rules += ", " + files
	}
	window, threshold := "the model's", "the default"
	if c.ContextWindow > 0 {
		window = strconv.Itoa(c.ContextWindow)
	}
	if c.CompactThreshold > 0 {
		threshold = strconv.FormatFloat(c.CompactThreshold, 'g', -1, 64)
	}
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	settings := []Setting{
		{"model", c.Model, orDefault(c.ModelSource)},
		{"base_url", orValue(c.BaseURL, "the client's default"), orDefault(c.BaseURLSource)},
		{"api_key_env", fmt.Sprintf("%s (%s)", c.APIKeyEnv, key), files},
		{"wire_api", orValue(c.WireAPI, "chat"), files},
		{"context_window", window, orDefault(c.WindowSource)},
		{"compact_threshold", threshold, orDefault(c.ThresholdSource)},
		{"permissions.allow", fmt.Sprintf("%d rules", len(c.Allow)), rules},
		{"permissions.deny", fmt.Sprintf("%d rules", len(c.Deny)), rules},
		{"mcp_servers", orValue(strings.Join(slices.Sorted(maps.Keys(c.MCPServers)), ", "), "none"), files},
		{"hooks", fmt.Sprintf("%d", len(c.Hooks)), files},
		{"tools.env_passthrough", orValue(strings.Join(c.EnvPassthrough, ", "), "none"), files},
		{"prices", fmt.Sprintf("%d models", len(c.Prices)), files},
		c.syncSetting(),
	}
	return append(settings, c.sandboxSettings(files)...)
}

// syncSetting shows where sessions sync to, and whether each turn pushes.
func (c *Config) syncSetting() Setting {
	if c.Sync == nil {
		return Setting{"sync", "off", SourceDefault}
	}
	v := c.Sync.URL
	if c.Sync.Endpoint != "" {
		v += " at " + c.Sync.Endpoint
	}
	if c.Sync.Auto {
		v += ", auto"
	}
	return Setting{"sync", v, c.SyncSource}
}

func orDefault(source string) string { return orValue(source, SourceDefault) }

func orValue(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// SourcedRule is a permission rule with where it came from (SourceFlag or
// a file's path).
type SourcedRule struct {
	Rule   tools.Rule
	Deny   bool
	Source string
}

func (c *Config) addRules(allow, deny []tools.Rule, source string) {
	for _, r := range deny {
		c.Rules = append(c.Rules, SourcedRule{Rule: r, Deny: true, Source: source})
	}
	for _, r := range allow {
		c.Rules = append(c.Rules, SourcedRule{Rule: r, Source: source})
	}
}
