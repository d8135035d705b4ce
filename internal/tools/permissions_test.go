package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
)

// scriptedAsker answers with a fixed decision and counts the prompts.
type scriptedAsker struct {
	mu       sync.Mutex
	decision Decision
	err      error
	asked    []string
}

func (a *scriptedAsker) Ask(ctx context.Context, tool Tool, input json.RawMessage) (Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, tool.Describe(input))
	return a.decision, a.err
}

func (a *scriptedAsker) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.asked)
}

func TestPermissionsMatrix(t *testing.T) {
	t.Parallel()
	set := Set(NewEnv(t.TempDir()))
	tool := func(name string) Tool { tl, _ := Lookup(set, name); return tl }
	bash := func(cmd string) json.RawMessage { b, _ := json.Marshal(obj{"command": cmd}); return b }
	write := json.RawMessage(`{"file_path":"a.txt","content":"x"}`)

	type check struct {
		tool    string
		input   json.RawMessage
		allowed bool
	}
	tests := []struct {
		name    string
		allowed []string
		skipAll bool
		asker   *scriptedAsker
		checks  []check
		asks    int
	}{
		{
			name: "read-only tools always run, others denied without a prompt",
			checks: []check{
				{NameRead, json.RawMessage(`{"file_path":"a"}`), true},
				{NameGlob, json.RawMessage(`{"pattern":"*"}`), true},
				{NameGrep, json.RawMessage(`{"pattern":"x"}`), true},
				{NameWrite, write, false},
				{NameEdit, json.RawMessage(`{}`), false},
				{NameBash, bash("ls"), false},
			},
		},
		{
			name:    "skip all",
			skipAll: true,
			checks:  []check{{NameWrite, write, true}, {NameBash, bash("rm -rf /tmp/x"), true}, {NameEdit, nil, true}},
		},
		{
			name:    "allowed list, case-insensitive",
			allowed: []string{"write", " EDIT "},
			checks:  []check{{NameWrite, write, true}, {NameEdit, nil, true}, {NameBash, bash("ls"), false}},
		},
		{
			name:    "comma-separated in one entry",
			allowed: []string{"Write,Bash"},
			checks:  []check{{NameWrite, write, true}, {NameBash, bash("ls"), true}, {NameEdit, nil, false}},
		},
		{
			name:    "bash prefix and exact rules",
			allowed: []string{"Bash(go test:*), Bash(git status)"},
			checks: []check{
				{NameBash, bash("go test"), true},
				{NameBash, bash("go test ./... -run X"), true},
				{NameBash, bash("  go test ./...  "), true},
				{NameBash, bash("go testdata"), false},
				{NameBash, bash("go test ./... && rm -rf ~"), false},
				{NameBash, bash("go test; rm x"), false},
				{NameBash, bash("go test $(rm x)"), false},
				{NameBash, bash("go test > out"), false},
				{NameBash, bash("go test\nrm x"), false},
				{NameBash, bash("git status"), true},
				{NameBash, bash("git status --short"), false},
				{NameWrite, write, false},
			},
		},
		{
			name:    "argument patterns for other tools never match",
			allowed: []string{"Edit(src/**)", "Write(*)"},
			checks:  []check{{NameEdit, nil, false}, {NameWrite, write, true}},
		},
		{
			name:   "asker allows once: asked every time",
			asker:  &scriptedAsker{decision: AllowOnce},
			checks: []check{{NameBash, bash("ls"), true}, {NameBash, bash("ls"), true}, {NameRead, nil, true}},
			asks:   2,
		},
		{
			name:  "asker allows always: a Bash command's prefix, Write in the project",
			asker: &scriptedAsker{decision: AllowAlways},
			checks: []check{
				{NameBash, bash("ls -l"), true}, {NameBash, bash("ls src"), true}, {NameBash, bash("pwd"), true},
				{NameWrite, write, true}, {NameWrite, write, true},
			},
			asks: 3,
		},
		{
			name:   "asker denies",
			asker:  &scriptedAsker{decision: Deny},
			checks: []check{{NameBash, bash("ls"), false}, {NameBash, bash("ls"), false}},
			asks:   2,
		},
		{
			name:    "allowed list wins over the asker",
			allowed: []string{"Bash"},
			asker:   &scriptedAsker{decision: Deny},
			checks:  []check{{NameBash, bash("ls"), true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asker Asker
			if tt.asker != nil {
				asker = tt.asker
			}
			var allowed []Rule
			for _, a := range tt.allowed {
				rules, err := ParseRules(a)
				if err != nil {
					t.Fatal(err)
				}
				allowed = append(allowed, rules...)
			}
			p := NewPermissions(PermissionsConfig{Allow: allowed, SkipAll: tt.skipAll, Asker: asker})
			for _, c := range tt.checks {
				denied, err := p.Check(context.Background(), tool(c.tool), c.input)
				if err != nil {
					t.Fatalf("%s %s: %v", c.tool, c.input, err)
				}
				if (denied == "") != c.allowed {
					t.Errorf("%s %s: denied=%q, want allowed=%v", c.tool, c.input, denied, c.allowed)
				}
			}
			if tt.asker != nil && tt.asker.count() != tt.asks {
				t.Errorf("asked %d times (%v), want %d", tt.asker.count(), tt.asker.asked, tt.asks)
			}
		})
	}
}

func TestPermissionDenialMessages(t *testing.T) {
	t.Parallel()
	set := Set(NewEnv(t.TempDir()))
	write, _ := Lookup(set, NameWrite)
	bash, _ := Lookup(set, NameBash)

	denied, err := NewPermissions(PermissionsConfig{}).Check(context.Background(), write, nil)
	want := "Permission to use Write was denied: run with --allowed-tools Write or --dangerously-skip-permissions to allow it."
	if err != nil || denied != want {
		t.Errorf("no asker: %q, %v", denied, err)
	}
	var nilPerms *Permissions
	if denied, _ := nilPerms.Check(context.Background(), bash, nil); !strings.Contains(denied, "Permission to use Bash was denied") {
		t.Errorf("nil Permissions: %q", denied)
	}
	denied, _ = NewPermissions(PermissionsConfig{}).Check(context.Background(), bash, json.RawMessage(`{"command":"go test ./... && git diff"}`))
	want = "Permission to use Bash was denied: run with --allowed-tools 'Bash(go test:*),Bash(git diff:*)' (or Bash for every call) or --dangerously-skip-permissions to allow it."
	if denied != want {
		t.Errorf("a Bash call in -p: %q", denied)
	}

	p := NewPermissions(PermissionsConfig{Asker: &scriptedAsker{decision: Deny}})
	denied, err = p.Check(context.Background(), bash, json.RawMessage(`{"command":"rm -rf build"}`))
	if err != nil || !strings.Contains(denied, "The user denied permission for Bash(rm -rf build)") {
		t.Errorf("user denial: %q, %v", denied, err)
	}
}

func TestPermissionAskError(t *testing.T) {
	t.Parallel()
	bash, _ := Lookup(Set(NewEnv(t.TempDir())), NameBash)
	p := NewPermissions(PermissionsConfig{Asker: &scriptedAsker{err: context.Canceled}})
	denied, err := p.Check(context.Background(), bash, json.RawMessage(`{"command":"ls"}`))
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrPermissionPrompt) || denied != "" {
		t.Fatalf("got %q, %v", denied, err)
	}
}

func TestSplitRules(t *testing.T) {
	t.Parallel()
	got := splitRules("Bash(go test:*),Edit  Write, Bash(git log --format=%h,%s)")
	want := []string{"Bash(go test:*)", "Edit", "Write", "Bash(git log --format=%h,%s)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q", got)
	}
}
