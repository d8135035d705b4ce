package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/hooks"
	"github.com/clawdcode/clawdcode/internal/objstore"
	"github.com/clawdcode/clawdcode/internal/tokens"
	"github.com/clawdcode/clawdcode/internal/tools"
	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// File is what one configuration file sets; a nil field is not set there.
type File struct {
	Path string `toml:"-"`
	// SHA256 is the hex SHA-256 of the file's bytes: a trust decision
	// holds for one content.
	SHA256 string `toml:"-"`

	Model            *string  `toml:"model"`
	BaseURL          *string  `toml:"base_url"`
	APIKeyEnv        *string  `toml:"api_key_env"`
	WireAPI          *string  `toml:"wire_api"`
	ContextWindow    *int     `toml:"context_window"`
	CompactThreshold *float64 `toml:"compact_threshold"`
	// StatusCost shows today's cost in the REPL's status line (default
	// true).
	StatusCost  *bool `toml:"status_cost"`
	Permissions struct {
		Allow []tools.Rule `toml:"allow"`
		Deny  []tools.Rule `toml:"deny"`
	} `toml:"permissions"`
	MCPServers map[string]MCPServer `toml:"mcp_servers"`
	// Hooks are [[hooks.EVENT]] tables, by event name.
	Hooks map[string][]HookEntry `toml:"hooks"`
	// Prices are [prices."MODEL"] tables: what the user pays for a model,
	// for /cost and the compaction receipt (harmless keys: they apply in
	// an untrusted project too).
	Prices map[string]PriceEntry `toml:"prices"`
	// Sandbox is the [sandbox] table (a project's may only narrow it).
	Sandbox SandboxFile `toml:"sandbox"`
	// Sync is the [sync] table: the object store sessions sync through
	// (CONTRACT.md §15). Resolve reads it from the user's file only.
	Sync  *SyncTable `toml:"sync"`
	Tools struct {
		// EnvPassthrough names variables handed to tools' commands (and
		// hooks and MCP servers) although their names look like
		// credentials (secrets.ChildEnv).
		EnvPassthrough []string `toml:"env_passthrough"`
	} `toml:"tools"`
	// Telemetry is [telemetry]: enabled turns OpenTelemetry export on
	// (CONTRACT.md section 16). Only the user's file may: a project's
	// is ignored with a warning.
	Telemetry struct {
		Enabled *bool `toml:"enabled"`
	} `toml:"telemetry"`
}

// HookEntry is one [[hooks.EVENT]] table: the command to run, for
// PreToolUse the tools it applies to (a regexp over the tool name; empty
// or "*" for all), and its timeout in seconds (default 60).
type HookEntry struct {
	Matcher string  `toml:"matcher"`
	Command string  `toml:"command"`
	Timeout float64 `toml:"timeout"`
}

// PriceEntry is one [prices."MODEL"] table, in US dollars per million
// tokens. input and output are required; cached_input (prompt tokens the
// server served from its cache) defaults to input.
type PriceEntry struct {
	Input       *float64 `toml:"input"`
	CachedInput *float64 `toml:"cached_input"`
	Output      *float64 `toml:"output"`
}

// Price is the entry as a tokens.Price (after check).
func (e PriceEntry) Price() tokens.Price {
	p := tokens.Price{Input: *e.Input, CachedInput: *e.Input, Output: *e.Output}
	if e.CachedInput != nil {
		p.CachedInput = *e.CachedInput
	}
	return p
}

// SyncTable is the [sync] table: url (s3://bucket/prefix), endpoint (the
// server's URL; omitted: the provider's default), region and auto (push
// each session's new records at the end of each turn).
type SyncTable struct {
	URL      string `toml:"url"`
	Endpoint string `toml:"endpoint"`
	Region   string `toml:"region"`
	Auto     bool   `toml:"auto"`
}

// MCPServer is one [mcp_servers.NAME] table: a server started as a child
// process (Command, Args, Env) or reached over streamable HTTP (URL,
// Headers).
type MCPServer struct {
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
	URL     string            `toml:"url"`
	Headers map[string]string `toml:"headers"`
}

// Wire APIs a configuration may name.
const (
	WireChat      = "chat"
	WireResponses = "responses"
)

// maxFileBytes bounds a configuration file: it is a few lines of settings.
const maxFileBytes = 1 << 20

var (
	envName    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	serverName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
)

// ReadFile reads and checks one configuration file. A missing file is
// (nil, nil). Unknown keys are reported to warn, one line each.
func ReadFile(path string, warn func(string)) (*File, error) {
	doc, err := readBounded(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: read %s: %w", ErrInvalid, path, err)
	}
	f, err := parseFile(path, doc, warn)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(doc)
	f.SHA256 = hex.EncodeToString(sum[:])
	return f, nil
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if info.Size() > maxFileBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxFileBytes)
	}
	var b bytes.Buffer
	_, err = b.ReadFrom(f)
	return b.Bytes(), err
}

// parseFile decodes doc strictly: syntax and type errors are FileErrors at
// their line, unknown keys warnings, then every value is checked.
func parseFile(path string, doc []byte, warn func(string)) (*File, error) {
	file := &File{Path: path}
	dec := toml.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	err := dec.Decode(file)
	var (
		missing *toml.StrictMissingError
		derr    *toml.DecodeError
	)
	switch {
	case err == nil:
	case errors.As(err, &missing):
		// The rest of the file was decoded; unknown keys only warn.
		for _, e := range missing.Errors {
			line, _ := e.Position()
			if warn != nil {
				warn(fmt.Sprintf("%s:%d: unknown key %s (ignored)", path, line, strings.Join(e.Key(), ".")))
			}
		}
	case errors.As(err, &derr):
		line, _ := derr.Position()
		msg := strings.TrimPrefix(derr.Error(), "toml: ")
		if k := derr.Key(); len(k) > 0 {
			if said, ok := typeMismatch(doc, k); ok && strings.Contains(msg, "cannot decode") {
				msg = said
			}
			msg = strings.Join(k, ".") + ": " + msg
		}
		return nil, &FileError{Path: path, Line: line, Msg: msg}
	default:
		return nil, &FileError{Path: path, Msg: err.Error()}
	}
	if err := file.check(keyLines(doc)); err != nil {
		return nil, err
	}
	return file, nil
}

// check validates values a type cannot: ranges, names, URLs.
func (f *File) check(lines map[string]int) error {
	bad := func(key, format string, args ...any) error {
		return &FileError{Path: f.Path, Line: lines[key], Msg: key + ": " + fmt.Sprintf(format, args...)}
	}
	if f.Model != nil && strings.TrimSpace(*f.Model) == "" {
		return bad("model", "must not be empty")
	}
	if f.BaseURL != nil {
		if err := checkURL(*f.BaseURL); err != nil {
			return bad("base_url", "%v", err)
		}
	}
	if f.APIKeyEnv != nil && !envName.MatchString(*f.APIKeyEnv) {
		return bad("api_key_env", "%q is not an environment variable name (the key itself is never read from a file)", *f.APIKeyEnv)
	}
	for _, name := range f.Tools.EnvPassthrough {
		if !envName.MatchString(name) {
			return bad("tools.env_passthrough", "%q is not an environment variable name", name)
		}
	}
	if f.WireAPI != nil && *f.WireAPI != WireChat && *f.WireAPI != WireResponses {
		return bad("wire_api", "%q: want %q or %q", *f.WireAPI, WireChat, WireResponses)
	}
	if f.ContextWindow != nil {
		if err := CheckWindow(*f.ContextWindow); err != nil {
			return bad("context_window", "%v", err)
		}
	}
	if f.CompactThreshold != nil {
		if err := CheckThreshold(*f.CompactThreshold); err != nil {
			return bad("compact_threshold", "%v", err)
		}
	}
	if err := f.checkPrices(bad); err != nil {
		return err
	}
	if err := f.checkSync(bad); err != nil {
		return err
	}
	if err := f.checkHooks(bad); err != nil {
		return err
	}
	if err := f.checkSandbox(bad); err != nil {
		return err
	}
	return f.checkMCPServers(bad)
}

// checkSync holds [sync] to an s3:// url and an http(s) endpoint.
func (f *File) checkSync(bad func(key, format string, args ...any) error) error {
	if f.Sync == nil {
		return nil
	}
	if strings.TrimSpace(f.Sync.URL) == "" {
		return bad("sync", "needs url = \"s3://bucket/prefix\"")
	}
	if _, err := objstore.ParseURL(f.Sync.URL); err != nil {
		return bad("sync.url", "%v", err)
	}
	if f.Sync.Endpoint != "" {
		if err := checkURL(f.Sync.Endpoint); err != nil {
			return bad("sync.endpoint", "%v", err)
		}
	}
	if f.Sync.Region != "" && strings.TrimSpace(f.Sync.Region) != f.Sync.Region || strings.ContainsAny(f.Sync.Region, "/ ") {
		return bad("sync.region", "%q is not a region name", f.Sync.Region)
	}
	return nil
}

// checkHooks holds every [[hooks.EVENT]] entry to a timeout that is not
// negative and to what hooks.Validate asks of a hook.
func (f *File) checkHooks(bad func(key, format string, args ...any) error) error {
	events := make([]string, 0, len(f.Hooks))
	for event := range f.Hooks {
		events = append(events, event)
	}
	slices.Sort(events)
	for _, event := range events {
		for _, h := range f.Hooks[event] {
			if h.Timeout < 0 {
				return bad("hooks."+event, "timeout %v is negative", h.Timeout)
			}
			if err := hooks.Validate(h.hook(event)); err != nil {
				return bad("hooks."+event, "%v", err)
			}
		}
	}
	return nil
}

// checkMCPServers holds every [mcp_servers.NAME] table to a valid name
// and one kind of server: a command, or a url with its headers.
func (f *File) checkMCPServers(bad func(key, format string, args ...any) error) error {
	names := make([]string, 0, len(f.MCPServers))
	for name := range f.MCPServers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		s := f.MCPServers[name]
		key := "mcp_servers." + name
		switch {
		case !serverName.MatchString(name):
			// Quoted: the name is the file's, and may hold anything.
			return bad(fmt.Sprintf("mcp_servers.%q", name), "server names may hold letters, digits, '-' and '_' only")
		case s.Command == "" && s.URL == "":
			return bad(key, "needs command (a server started as a process) or url (streamable HTTP)")
		case s.Command != "" && s.URL != "":
			return bad(key, "has both command and url; give one")
		case s.Command != "" && len(s.Headers) > 0:
			return bad(key, "headers are for url servers")
		case s.URL != "" && (len(s.Args) > 0 || len(s.Env) > 0):
			return bad(key, "args and env are for command servers")
		}
		if s.URL != "" {
			if err := checkURL(s.URL); err != nil {
				return bad(key+".url", "%v", err)
			}
		}
	}
	return nil
}

// checkPrices holds every [prices."MODEL"] table to a model name and
// finite, non-negative figures, input and output given.
func (f *File) checkPrices(bad func(key, format string, args ...any) error) error {
	for _, name := range slices.Sorted(maps.Keys(f.Prices)) {
		e := f.Prices[name]
		key := "prices." + name
		if strings.TrimSpace(name) == "" {
			return bad(key, "needs a model name")
		}
		if e.Input == nil || e.Output == nil {
			return bad(key, "needs input and output (US dollars per million tokens)")
		}
		for _, f := range []struct {
			name string
			v    *float64
		}{{"input", e.Input}, {"cached_input", e.CachedInput}, {"output", e.Output}} {
			if f.v != nil && !(*f.v >= 0 && !math.IsInf(*f.v, 1)) {
				return bad(key, "%s = %v is not a price (US dollars per million tokens, 0 or more)", f.name, *f.v)
			}
		}
	}
	return nil
}

func (h HookEntry) hook(event string) hooks.Hook {
	return hooks.Hook{Event: event, Matcher: h.Matcher, Command: h.Command,
		Timeout: time.Duration(h.Timeout * float64(time.Second))}
}

// CheckWindow is the rule for a context window from any source.
func CheckWindow(n int) error {
	if n <= 0 {
		return fmt.Errorf("%d is not a positive number of tokens", n)
	}
	return nil
}

// CheckThreshold is the rule for a compaction threshold from any source.
func CheckThreshold(f float64) error {
	if !(f > 0 && f <= 1) {
		return fmt.Errorf("%v is not a fraction in (0, 1]", f)
	}
	return nil
}

func checkURL(s string) error {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", s)
	}
	return nil
}

// keyLines maps every key of doc, dotted with its table ("permissions.allow",
// "mcp_servers.fs"), to the line it is written on, for messages about
// values. A document that does not parse gives what was read before the
// problem.
func keyLines(doc []byte) map[string]int {
	lines := make(map[string]int)
	var p unstable.Parser
	p.Reset(doc)
	var table []string
	keyOf := func(it unstable.Iterator) ([]string, int) {
		var parts []string
		line := 0
		for it.Next() {
			n := it.Node()
			parts = append(parts, string(n.Data))
			if line == 0 {
				line = p.Shape(n.Raw).Start.Line
			}
		}
		return parts, line
	}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			parts, line := keyOf(e.Key())
			table = parts
			lines[strings.Join(parts, ".")] = line
		case unstable.KeyValue:
			parts, line := keyOf(e.Key())
			full := strings.Join(append(slices.Clone(table), parts...), ".")
			lines[full] = line
		}
	}
	return lines
}
