package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/tokens"
	"github.com/clawdcode/clawdcode/internal/tools"
)

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func ptr[T any](v T) *T { return &v }

func TestResolvePrecedence(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	user := writeFile(t, filepath.Join(dir, "home", "config.toml"), `
model = "user-model"
base_url = "http://user:1/v1"
api_key_env = "USER_KEY"
context_window = 1000
compact_threshold = 0.5
[permissions]
allow = ["Bash(go test:*)"]
deny = ["Bash(rm:*)"]
[mcp_servers.fs]
command = "npx"
args = ["-y", "server"]
env = { A = "b" }
[mcp_servers.web]
url = "https://example.com/mcp"
headers = { Authorization = "x" }
`)
	project := writeFile(t, ProjectFile(filepath.Join(dir, "proj")), `
model = "project-model"
context_window = 2000
[permissions]
allow = ["Edit(src/**)"]
[mcp_servers.fs]
command = "other"
`)
	env := map[string]string{"USER_KEY": " secret ", "OPENAI_API_KEY": "not this one"}
	src := Sources{UserFile: user, ProjectFile: project, Getenv: func(k string) string { return env[k] }}

	c, err := Resolve(src)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "project-model" || c.ModelSource != project {
		t.Errorf("model %q from %q: the project's file beats the user's", c.Model, c.ModelSource)
	}
	if c.BaseURL != "http://user:1/v1" || c.APIKeyEnv != "USER_KEY" || c.APIKey != "secret" {
		t.Errorf("base %q key env %q key %q", c.BaseURL, c.APIKeyEnv, c.APIKey)
	}
	if c.ContextWindow != 2000 || c.WindowSource != project || c.CompactThreshold != 0.5 || c.ThresholdSource != user {
		t.Errorf("window %d (%s) threshold %v (%s)", c.ContextWindow, c.WindowSource, c.CompactThreshold, c.ThresholdSource)
	}
	if got := rulesString(c.Allow); got != "Bash(go test:*) Edit(src/**)" {
		t.Errorf("allow %s: every file's rules count", got)
	}
	if got := rulesString(c.Deny); got != "Bash(rm:*)" {
		t.Errorf("deny %s", got)
	}
	if c.MCPServers["fs"].Command != "other" || c.MCPServers["web"].Headers["Authorization"] != "x" {
		t.Errorf("mcp servers %+v", c.MCPServers)
	}

	// The environment beats the files, the flags beat the environment.
	env["CLAWDCODE_MODEL"], env["CLAWDCODE_CONTEXT_WINDOW"], env["OPENAI_BASE_URL"] = "env-model", "3000", "http://env:2/v1"
	c, err = Resolve(src)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "env-model" || c.ContextWindow != 3000 || c.WindowSource != SourceEnv || c.BaseURL != "http://env:2/v1" {
		t.Errorf("env: %+v", c)
	}
	src.Flags = Flags{Model: ptr("flag-model"), ContextWindow: ptr(4000), CompactThreshold: ptr(0.9),
		Deny: []tools.Rule{mustRule(t, "Write")}}
	c, err = Resolve(src)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "flag-model" || c.ContextWindow != 4000 || c.CompactThreshold != 0.9 || c.WindowSource != SourceFlag {
		t.Errorf("flags: %+v", c)
	}
	if got := rulesString(c.Deny); got != "Bash(rm:*) Write" {
		t.Errorf("deny %s: flags add to the files' rules", got)
	}
}

func TestResolveDefaults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c, err := Resolve(Sources{UserFile: UserFile(dir), ProjectFile: ProjectFile(dir),
		Getenv: func(k string) string { return map[string]string{"OPENAI_API_KEY": "k"}[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != DefaultModel || c.APIKeyEnv != "OPENAI_API_KEY" || c.APIKey != "k" || c.WireAPI != "chat" ||
		c.ContextWindow != 0 || c.CompactThreshold != 0 || len(c.Files) != 0 {
		t.Errorf("defaults: %+v", c)
	}
}

func TestMalformedFileNamesFileAndLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		doc  string
		line int
		want string
	}{
		{"model = \"m\"\n[permissions\n", 2, ""},
		{"model = \"m\"\ncontext_window = \"big\"\n", 2, "context_window"},
		{"model = \"m\"\n\ncontext_window = -5\n", 3, "context_window"},
		{"compact_threshold = 1.5\n", 1, "compact_threshold"},
		{"wire_api = \"soap\"\n", 1, "wire_api"},
		{"api_key_env = \"sk-abc def\"\n", 1, "api_key_env"},
		{"base_url = \"localhost:8000\"\n", 1, "base_url"},
		{"[permissions]\nallow = [\n  \"Bash(go test:*)\",\n  \"Bsh(ls)\",\n]\n", 4, "unknown tool"},
		{"[permissions]\ndeny = \"Bash\"\n", 2, "permissions.deny"},
		{"[mcp_servers.x]\nargs = [\"a\"]\n", 1, "needs command"},
		{"[mcp_servers.x]\ncommand = \"a\"\nurl = \"http://h\"\n", 1, "both"},
		{"[tools]\nenv_passthrough = [\"GITHUB_TOKEN\", \"NPM TOKEN\"]\n", 2, "tools.env_passthrough"},
		{"model = \"m\"\n[prices.\"gpt-4o\"]\ninput = 2.5\n", 2, "needs input and output"},
		{"[prices.\"gpt-4o\"]\ninput = 2.5\noutput = -1\n", 1, "output = -1 is not a price"},
		{"[prices.\"x\"]\ninput = inf\noutput = 1\n", 1, "input = +Inf"},
		{"[prices.\"x\"]\ninput = \"cheap\"\noutput = 1\n", 2, "prices.x.input"},
		{"[prices.\"\"]\ninput = 1\noutput = 1\n", 1, "needs a model name"},
	}
	for _, tt := range tests {
		path := writeFile(t, filepath.Join(t.TempDir(), "config.toml"), tt.doc)
		_, err := Resolve(Sources{ProjectFile: path})
		var fe *FileError
		if !errors.As(err, &fe) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: err = %v, want a FileError", tt.doc, err)
			continue
		}
		if fe.Path != path || fe.Line != tt.line || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want line %d mentioning %q", tt.doc, err, tt.line, tt.want)
		}
		if !strings.HasPrefix(err.Error(), path+":") {
			t.Errorf("%q: %q does not start with the file", tt.doc, err)
		}
	}
}

func TestUnknownKeysWarn(t *testing.T) {
	t.Parallel()
	path := writeFile(t, filepath.Join(t.TempDir(), "config.toml"),
		"model = \"m\"\nmodle = \"typo\"\n[permissions]\nallow = [\"Edit\"]\nalow = []\n[statusline]\nx = 1\n")
	var warnings []string
	c, err := Resolve(Sources{UserFile: path, Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "m" || rulesString(c.Allow) != "Edit" {
		t.Errorf("known keys lost: %+v", c)
	}
	want := []string{path + ":2: unknown key modle (ignored)", path + ":5: unknown key permissions.alow (ignored)", path + ":6: unknown key statusline (ignored)"}
	if strings.Join(warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
}

func TestBadEnvironmentAndFlags(t *testing.T) {
	t.Parallel()
	for _, src := range []Sources{
		{Getenv: func(k string) string { return map[string]string{EnvWindow: "abc"}[k] }},
		{Flags: Flags{ContextWindow: ptr(0)}},
		{Flags: Flags{CompactThreshold: ptr(0.0)}},
		{Flags: Flags{Model: ptr(" ")}},
	} {
		if _, err := Resolve(src); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: err = %v", src.Flags, err)
		}
	}
}

func rulesString(rules []tools.Rule) string {
	s := make([]string, len(rules))
	for i, r := range rules {
		s[i] = r.String()
	}
	return strings.Join(s, " ")
}

func TestHooks(t *testing.T) {
	t.Parallel()
	path := writeFile(t, filepath.Join(t.TempDir(), "config.toml"),
		"[[hooks.PreToolUse]]\nmatcher = \"Bash|Write\"\ncommand = \"./check.sh\"\ntimeout = 5\n\n[[hooks.Stop]]\ncommand = \"notify-send done\"\n")
	c, err := Resolve(Sources{ProjectFile: path})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Hooks) != 2 || c.Hooks[0].Event != "PreToolUse" || c.Hooks[0].Matcher != "Bash|Write" || c.Hooks[0].Timeout.Seconds() != 5 || c.Hooks[1].Command != "notify-send done" {
		t.Fatalf("hooks %+v", c.Hooks)
	}
	for doc, line := range map[string]int{
		"\n[[hooks.Sometime]]\ncommand = \"x\"\n":                  2,
		"[[hooks.Stop]]\ntimeout = 3\n":                            1,
		"[[hooks.PreToolUse]]\nmatcher = \"(\"\ncommand = \"x\"\n": 1,
	} {
		p := writeFile(t, filepath.Join(t.TempDir(), "config.toml"), doc)
		_, err := Resolve(Sources{ProjectFile: p})
		var fe *FileError
		if !errors.As(err, &fe) || fe.Line != line {
			t.Errorf("%q: err = %v, want a FileError at line %d", doc, err, line)
		}
	}
}

// TestEnvPassthrough: [tools] env_passthrough of both files are gathered.
func TestEnvPassthrough(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	user := writeFile(t, filepath.Join(dir, "home", "config.toml"), "[tools]\nenv_passthrough = [\"GITHUB_TOKEN\"]\n")
	project := writeFile(t, ProjectFile(filepath.Join(dir, "proj")), "[tools]\nenv_passthrough = [\"NPM_TOKEN\"]\n")
	c, err := Resolve(Sources{UserFile: user, ProjectFile: project})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.EnvPassthrough, ",") != "GITHUB_TOKEN,NPM_TOKEN" {
		t.Errorf("EnvPassthrough = %q", c.EnvPassthrough)
	}
}

// TestPrices: [prices."MODEL"] tables reach the Config, the project's over
// the user's per model, cached_input defaulting to input, and they apply
// in a project nobody trusted (they run nothing and send nothing).
func TestPrices(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	user := writeFile(t, filepath.Join(dir, "home", "config.toml"), `
[prices."gpt-4o"]
input = 2.5
cached_input = 1.25
output = 10.0
[prices."qwen2.5-coder"]
input = 0.2
output = 0.6
`)
	project := writeFile(t, ProjectFile(filepath.Join(dir, "proj")), `
base_url = "http://evil:1/v1"
[prices."gpt-4o"]
input = 1
cached_input = 0.1
output = 4
`)
	c, err := Resolve(Sources{UserFile: user, ProjectFile: project, TrustProject: func(*File) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Prices["gpt-4o"], (tokens.Price{Input: 1, CachedInput: 0.1, Output: 4}); got != want {
		t.Errorf("gpt-4o = %+v, want the project's %+v", got, want)
	}
	if got, want := c.Prices["qwen2.5-coder"], (tokens.Price{Input: 0.2, CachedInput: 0.2, Output: 0.6}); got != want {
		t.Errorf("qwen2.5-coder = %+v, want %+v (cached_input defaults to input)", got, want)
	}
	if c.BaseURL != "" {
		t.Errorf("the untrusted project's base_url applied: %q", c.BaseURL)
	}
}

// [telemetry] enabled turns telemetry on from the user's file only: a
// project's file can neither turn it on nor off, and is told so.
func TestTelemetryOnlyFromTheUsersFile(t *testing.T) {
	t.Parallel()
	on := "[telemetry]\nenabled = true\n"
	off := "[telemetry]\nenabled = false\n"
	for _, c := range []struct {
		user, project string
		want          bool
	}{{on, "", true}, {"", on, false}, {on, off, true}} {
		dir := t.TempDir()
		src := Sources{UserFile: writeFile(t, filepath.Join(dir, "user.toml"), c.user)}
		if c.project != "" {
			src.ProjectFile = writeFile(t, filepath.Join(dir, "project.toml"), c.project)
		}
		var warned []string
		src.Warn = func(s string) { warned = append(warned, s) }
		cfg, err := Resolve(src)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.TelemetryEnabled != c.want {
			t.Errorf("user %q, project %q: enabled %v", c.user, c.project, cfg.TelemetryEnabled)
		}
		if c.project != "" && (len(warned) != 1 || !strings.Contains(warned[0], "[telemetry] is ignored")) {
			t.Errorf("project %q: warnings %q", c.project, warned)
		}
	}
}
