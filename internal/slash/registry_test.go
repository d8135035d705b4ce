package slash

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/checkpoint"
	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/mcphost"
	"github.com/clawdcode/clawdcode/internal/memory"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line       string
		name, args string
		ok         bool
	}{
		{"/help", "help", "", true},
		{"  /compact   keep the API decisions  \n", "compact", "keep the API decisions", true},
		{"/new\tMy title", "new", "My title", true},
		{"/switch 1a2b", "switch", "1a2b", true},
		{"/Model gpt-4o", "Model", "gpt-4o", true},
		{"/x-y_z1", "x-y_z1", "", true},
		{"/compact line one\nline two", "compact", "line one\nline two", true},
		{"hello /help", "", "", false},
		{"", "", "", false},
		{"   ", "", "", false},
		{"/", "", "", false},
		{"/ help", "", "", false},
		{"/etc/hosts is empty, why?", "", "", false},
		{"/tmp/x", "", "", false},
		{"/héllo", "", "", false},
		{"//help", "", "", false},
	}
	for _, tt := range tests {
		name, args, ok := Parse(tt.line)
		if name != tt.name || args != tt.args || ok != tt.ok {
			t.Errorf("Parse(%q) = %q, %q, %v; want %q, %q, %v", tt.line, name, args, ok, tt.name, tt.args, tt.ok)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"/help", " /compact do it ", "/", "/a/b", "x", "/new\u00a0t", "/\xff", "/m\tx\ny"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		name, args, ok := Parse(line)
		if !ok {
			if name != "" || args != "" {
				t.Fatalf("Parse(%q) not ok but returned %q, %q", line, name, args)
			}
			return
		}
		if name == "" || strings.ContainsFunc(name, func(r rune) bool { return !isNameRune(r) }) {
			t.Fatalf("Parse(%q): bad name %q", line, name)
		}
		if args != strings.TrimSpace(args) {
			t.Fatalf("Parse(%q): args %q not trimmed", line, args)
		}
		if utf8.ValidString(line) && !utf8.ValidString(args) {
			t.Fatalf("Parse(%q): args %q cut a rune", line, args)
		}
		// What Parse returns reads back the same.
		again := "/" + name
		if args != "" {
			again += " " + args
		}
		n2, a2, ok2 := Parse(again)
		if !ok2 || n2 != name || a2 != args {
			t.Fatalf("Parse(%q) = %q, %q; reparse of %q = %q, %q, %v", line, name, args, again, n2, a2, ok2)
		}
	})
}

// fakeEngine records what the commands asked of it.
type fakeEngine struct {
	id      string
	model   string
	started []string
	resumed []string
	project *storage.Project
	err     error
}

func (e *fakeEngine) ID() string { return e.id }
func (e *fakeEngine) StartNew(_ context.Context, title string) error {
	if e.err != nil {
		return e.err
	}
	e.started = append(e.started, title)
	e.id = ""
	return nil
}
func (e *fakeEngine) Resume(_ context.Context, id string) error {
	if e.err != nil {
		return e.err
	}
	e.resumed = append(e.resumed, id)
	e.id = id
	return nil
}
func (e *fakeEngine) Project() *storage.Project                   { return e.project }
func (e *fakeEngine) Live(context.Context) (*storage.Live, error) { return nil, nil }
func (e *fakeEngine) Model() string                               { return e.model }
func (e *fakeEngine) SetModel(name string)                        { e.model = name }
func (e *fakeEngine) Book() *memory.Book                          { return nil }
func (e *fakeEngine) SessionRules() []tools.Rule                  { return nil }
func (e *fakeEngine) AddSessionRule(tools.Rule)                   {}
func (e *fakeEngine) RemoveSessionRule(tools.Rule) bool {
	return false
}
func (e *fakeEngine) SaveProjectRule(tools.Rule) error  { return nil }
func (e *fakeEngine) AddDir(dir string) (string, error) { return dir, nil }
func (e *fakeEngine) Dirs() []string                    { return nil }
func (e *fakeEngine) Diff(context.Context) ([]checkpoint.FileDiff, error) {
	return nil, nil
}
func (e *fakeEngine) Summary() tools.PermissionSummary {
	return tools.PermissionSummary{}
}
func (e *fakeEngine) Suggest(context.Context) ([]memory.Suggestion, error) {
	return nil, nil
}

// fakeParts is a fake of every part but the context (a command that
// reads the context runs against the real engine: context_cmd_test.go).
type fakeParts interface {
	Sessions
	Model
	Permissions
	Tasks
	Shells
	Memory
	Checkpoints
	MCP
}

func testEnv(e fakeParts) (*Env, *bytes.Buffer) {
	io, _, out, _ := iostreams.Test()
	parts := Parts{Sessions: e, Model: e, Permissions: e, Tasks: e, Shells: e, Memory: e, Checkpoints: e, MCP: e}
	return &Env{Parts: parts, IO: io}, out
}

func TestRunUnknownAndNotACommand(t *testing.T) {
	t.Parallel()
	env, _ := testEnv(&fakeEngine{})
	err := Default().Run(t.Context(), env, "/frobnicate now")
	if !errors.Is(err, ErrUnknownCommand) || err.Error() != "unknown command /frobnicate; type /help for the list" {
		t.Fatalf("err = %v", err)
	}
	if err := Default().Run(t.Context(), env, "just a message"); !errors.Is(err, ErrNotCommand) {
		t.Fatalf("err = %v", err)
	}
}

func TestHelpListsEveryContractCommand(t *testing.T) {
	t.Parallel()
	env, out := testEnv(&fakeEngine{})
	if err := Default().Run(t.Context(), env, "/help"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/help", "/new [title]", "/switch <id-prefix or title-prefix>", "/sessions", "/resume", "/clear", "/context", "/compact [instructions]", "/model [name]", "/cost", "/exit",
		"/pin [text]", "/pins", "/unpin <n>", "/handoff [instructions]", "/fork [title]", "/rewind", "/undo"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("/help lacks %q:\n%s", want, out)
		}
	}
	for _, c := range Default().Commands() {
		if c.Summary == "" || (c.Run == nil) == (c.Prompt == nil) || c.Name != strings.ToLower(c.Name) || strings.ContainsFunc(c.Name, unicode.IsSpace) {
			t.Errorf("command %+v is incomplete", c.Name)
		}
	}
}

func TestNewAndClear(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"/new", "/clear"} {
		e := &fakeEngine{id: "0123456789abcdef"}
		env, out := testEnv(e)
		if err := Default().Run(t.Context(), env, cmd+"  Refactor the parser "); err != nil {
			t.Fatal(err)
		}
		if len(e.started) != 1 || e.started[0] != "Refactor the parser" {
			t.Fatalf("%s: StartNew calls %q", cmd, e.started)
		}
		want := "Started a new session \"Refactor the parser\"; the previous one (01234567) stays resumable.\n"
		if out.String() != want {
			t.Fatalf("%s printed %q, want %q", cmd, out, want)
		}
	}
	e := &fakeEngine{err: errors.New("disk full")}
	env, _ := testEnv(e)
	if err := Default().Run(t.Context(), env, "/new"); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v", err)
	}
}

func TestModel(t *testing.T) {
	t.Parallel()
	e := &fakeEngine{model: "gpt-4o"}
	env, out := testEnv(e)
	r := Default()
	if err := r.Run(t.Context(), env, "/model"); err != nil || out.String() != "Model: gpt-4o\n" {
		t.Fatalf("show: %q, %v", out, err)
	}
	out.Reset()
	if err := r.Run(t.Context(), env, "/model qwen2.5-coder:7b"); err != nil || e.model != "qwen2.5-coder:7b" {
		t.Fatalf("set: model %q, err %v", e.model, err)
	}
	if out.String() != "Model set to qwen2.5-coder:7b (was gpt-4o).\n" {
		t.Fatalf("set printed %q", out)
	}
	if err := r.Run(t.Context(), env, "/model two words"); !errors.Is(err, ErrUsage) || e.model != "qwen2.5-coder:7b" {
		t.Fatalf("bad name: err %v, model %q", err, e.model)
	}
}

func TestExit(t *testing.T) {
	t.Parallel()
	env, _ := testEnv(&fakeEngine{})
	for _, line := range []string{"/exit", "/quit", " /EXIT "} {
		if err := Default().Run(t.Context(), env, line); !errors.Is(err, ErrExit) {
			t.Errorf("%s: err = %v", line, err)
		}
	}
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -12345: "-12,345"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestIsCommand(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"/compact":                    true,
		"/compact keep the API notes": true,
		"  /help  ":                   true,
		"/compcat":                    true, // unknown: Run says so, naming /help
		"/etc/hosts: what is this?":   false,
		"/etc/hosts is empty, why?":   false,
		"/tmp/x.go fails to build":    false,
		"fix /compact":                false,
		"hello":                       false,
		"/":                           false,
	}
	for line, want := range tests {
		if got := IsCommand(line); got != want {
			t.Errorf("IsCommand(%q) = %v, want %v", line, got, want)
		}
	}
}

// The rest of the engine's contract: this fake has no history to go back
// to, no server to list models from and no MCP servers.
func (e *fakeEngine) Title() string               { return "" }
func (e *fakeEngine) Rename(string) error         { return errFakeEngine }
func (e *fakeEngine) Servers() []mcphost.Status   { return nil }
func (e *fakeEngine) Join(context.Context)        {}
func (e *fakeEngine) Types() []agent.SubagentType { return nil }
func (e *fakeEngine) Create(agent.NewAgent) (string, error) {
	return "", errors.New("not in the fake")
}
func (e *fakeEngine) List() []tools.ShellInfo { return nil }
func (e *fakeEngine) Output(string) (tools.ShellInfo, string, error) {
	return tools.ShellInfo{}, "", errors.New("not in the fake")
}
func (e *fakeEngine) Stop(string) (tools.ShellInfo, error) {
	return tools.ShellInfo{}, errors.New("not in the fake")
}
func (e *fakeEngine) Running() int                                        { return 0 }
func (e *fakeEngine) ListModels(context.Context) ([]string, error)        { return nil, errFakeEngine }
func (e *fakeEngine) Undo(context.Context) ([]checkpoint.Restored, error) { return nil, errFakeEngine }
func (e *fakeEngine) UndoDrift(context.Context) ([]checkpoint.Drift, error) {
	return nil, errFakeEngine
}
func (e *fakeEngine) RewindDrift(context.Context, agent.RewindPoint) ([]checkpoint.Drift, error) {
	return nil, errFakeEngine
}
func (e *fakeEngine) RewindPoints(context.Context) ([]agent.RewindPoint, error) {
	return nil, errFakeEngine
}
func (e *fakeEngine) Rewind(context.Context, agent.RewindPoint, bool) ([]checkpoint.Restored, error) {
	return nil, errFakeEngine
}
func (e *fakeEngine) ReturnPoint(context.Context) (*agent.ReturnPoint, error) {
	return nil, errFakeEngine
}
func (e *fakeEngine) ReturnDrift(context.Context, agent.ReturnPoint) ([]checkpoint.Drift, error) {
	return nil, errFakeEngine
}
func (e *fakeEngine) Return(context.Context, agent.ReturnPoint, bool) ([]checkpoint.Restored, error) {
	return nil, errFakeEngine
}
func (e *fakeEngine) Fork(context.Context, string, string) (string, error) { return "", errFakeEngine }
func (e *fakeEngine) Handoff(context.Context, string) (*agent.HandoffResult, error) {
	return nil, errFakeEngine
}

var errFakeEngine = errors.New("not in the test's fake engine")
