package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseRule(t *testing.T) {
	t.Parallel()
	for spec, want := range map[string]string{
		"bash":                 "Bash",
		" EDIT ":               "Edit",
		"Bash(*)":              "Bash",
		"Write()":              "Write",
		"Bash(go test:*)":      "Bash(go test:*)",
		"bash( npm test )":     "Bash(npm test)",
		"Edit(src/**)":         "Edit(src/**)",
		"Read(/etc/**)":        "Read(/etc/**)",
		"Write(docs/{a,b}.md)": "Write(docs/{a,b}.md)",
		"mcp__fs__read_file":   "mcp__fs__read_file",
		"Recall":               "Recall",
	} {
		r, err := ParseRule(spec)
		if err != nil || r.String() != want {
			t.Errorf("ParseRule(%q) = %q, %v; want %q", spec, r, err, want)
		}
	}
	for _, spec := range []string{"", "(x)", "Delete", "Bash(ls", "Bash(:*)", "Glob(src)", "Edit([)", "mcp__x(y)"} {
		if r, err := ParseRule(spec); err == nil {
			t.Errorf("ParseRule(%q) = %q, want an error", spec, r)
		}
	}
}

// TestRuleMatcher holds the rule grammar of CONTRACT.md §7 to its word:
// exact and prefix Bash rules, compound commands (every part for an allow,
// any part for a deny), path globs relative to the root, symlinks resolved.
func TestRuleMatcher(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(root, "src", "pkg"), 0o755)
	os.MkdirAll(filepath.Join(root, "docs"), 0o755)
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "src"), filepath.Join(root, "srclink")); err != nil {
		t.Fatal(err)
	}
	set := Set(NewEnv(root))
	tool := func(name string) Tool { tl, _ := Lookup(set, name); return tl }
	type toolCall struct {
		tool  Tool
		input json.RawMessage
	}
	bash := func(cmd string) toolCall {
		b, _ := json.Marshal(obj{"command": cmd})
		return toolCall{tool(NameBash), b}
	}
	file := func(name, path string) toolCall {
		b, _ := json.Marshal(obj{"file_path": path, "content": "x", "old_string": "a", "new_string": "b"})
		return toolCall{tool(name), b}
	}
	type check struct {
		tool  Tool
		input json.RawMessage
		want  bool
	}
	c := func(tc toolCall, want bool) check { return check{tc.tool, tc.input, want} }
	tests := []struct {
		allow, deny string
		checks      []check
	}{
		{allow: "Bash(npm test)", checks: []check{
			c(bash("npm test"), true), c(bash("  npm test "), true), c(bash("npm test --watch"), false),
			c(bash("npm test; npm test"), true), c(bash("npm test && rm -rf /"), false),
		}},
		{allow: "Bash(git diff:*)", checks: []check{
			c(bash("git diff"), true), c(bash("git diff HEAD~1 -- a.go"), true), c(bash("git diffx"), false),
			c(bash("git diff | less"), false), c(bash("git diff > patch"), false), c(bash("git diff 2>&1"), true),
			c(bash("git diff `touch x`"), false), c(bash("git diff $(touch x)"), false), c(bash("git diff\ntouch x"), false),
		}},
		{allow: "Bash(git diff:*), Bash(less:*)", checks: []check{
			c(bash("git diff | less -R"), true), c(bash("git diff | less; rm x"), false),
		}},
		{allow: "Bash", deny: "Bash(rm:*)", checks: []check{
			c(bash("ls"), true), c(bash("rm -rf build"), false), c(bash("ls && rm x"), false),
			c(bash("if rm x; then :; fi"), false), c(bash("FOO=1 rm x"), false), c(bash("echo $(rm x)"), false),
			c(bash("rmdir x"), true), c(bash("echo rm"), true),
			c(bash("/bin/rm x"), false), c(bash(`\rm x`), false), c(bash("sudo -u root rm x"), false),
			c(bash("find . | xargs -0 rm"), false), c(bash("timeout 5 rm x"), false), c(bash("env -i FOO=1 rm x"), false),
		}},
		{allow: "Edit(src/**), Write(docs/*.md)", checks: []check{
			c(file(NameEdit, "src/a.go"), true), c(file(NameEdit, "src/pkg/b.go"), true),
			c(file(NameEdit, filepath.Join(root, "src", "c.go")), true), c(file(NameEdit, "srclink/d.go"), true),
			c(file(NameEdit, "main.go"), false), c(file(NameEdit, "src/../main.go"), false),
			c(file(NameWrite, "docs/a.md"), true), c(file(NameWrite, "docs/sub/a.md"), false),
			c(file(NameWrite, "docs/a.txt"), false), c(file(NameWrite, "src/a.go"), false),
		}},
		{allow: "Write", checks: []check{
			c(file(NameWrite, "new/file.txt"), true),
			c(file(NameWrite, filepath.Join(outside, "x")), false), c(file(NameWrite, "escape/x"), false),
			c(file(NameWrite, "../x"), false),
		}},
		{allow: "Write(" + filepath.ToSlash(outside) + "/**)", checks: []check{
			c(file(NameWrite, "escape/x"), true), c(file(NameWrite, filepath.Join(outside, "y")), true),
			c(file(NameWrite, "inside.txt"), false),
		}},
		{allow: "Edit", deny: "Edit(src/**)", checks: []check{
			c(file(NameEdit, "main.go"), true), c(file(NameEdit, "srclink/a.go"), false),
		}},
		{deny: "Read(.env)", checks: []check{
			c(file(NameRead, "a.txt"), true), c(file(NameRead, ".env"), false), c(file(NameRead, "./.env"), false),
		}},
	}
	for _, tt := range tests {
		allow, err := ParseRules(tt.allow)
		if err != nil {
			t.Fatal(err)
		}
		deny, err := ParseRules(tt.deny)
		if err != nil {
			t.Fatal(err)
		}
		p := NewPermissions(PermissionsConfig{Root: root, Allow: allow, Deny: deny})
		for _, ck := range tt.checks {
			denied, err := p.Check(context.Background(), ck.tool, ck.input)
			if err != nil {
				t.Fatal(err)
			}
			if got := denied == ""; got != ck.want {
				t.Errorf("allow %q deny %q: %s %s allowed=%v, want %v (%s)", tt.allow, tt.deny, ck.tool.Name(), ck.input, got, ck.want, denied)
			}
		}
	}
}

// The project's .clawdcode/ is guarded like a place outside the project.
func TestSensitivePlacesNeedTheirOwnRule(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write, _ := Lookup(Set(NewEnv(root)), NameWrite)
	in := json.RawMessage(`{"file_path":".clawdcode/config.toml","content":"x"}`)
	sensitive := []string{filepath.Join(root, ".clawdcode")}
	for _, cfg := range []PermissionsConfig{
		{Root: root, Sensitive: sensitive, SkipAll: true},
		{Root: root, Sensitive: sensitive, Allow: []Rule{{tool: NameWrite}}},
	} {
		if denied, _ := NewPermissions(cfg).Check(context.Background(), write, in); !strings.Contains(denied, "settings of clawdcode") {
			t.Errorf("%+v: %q", cfg, denied)
		}
	}
	own, _ := ParseRules("Write(.clawdcode/*.toml)")
	if denied, _ := NewPermissions(PermissionsConfig{Root: root, Sensitive: sensitive, Allow: own}).Check(context.Background(), write, in); denied != "" {
		t.Errorf("its own rule: %q", denied)
	}
	asker := &scriptedAsker{decision: AllowAlways}
	p := NewPermissions(PermissionsConfig{Root: root, Sensitive: sensitive, Asker: asker})
	p.Check(context.Background(), write, json.RawMessage(`{"file_path":"a.txt","content":"x"}`))
	p.Check(context.Background(), write, in)
	if asker.count() != 2 {
		t.Errorf("an always for Write in the project covered .clawdcode/ (asked %d times)", asker.count())
	}
}

func TestDenyWinsOverSkipAll(t *testing.T) {
	t.Parallel()
	set := Set(NewEnv(t.TempDir()))
	bash, _ := Lookup(set, NameBash)
	read, _ := Lookup(set, NameRead)
	deny, _ := ParseRules("Bash(curl:*), Read")
	p := NewPermissions(PermissionsConfig{SkipAll: true, Deny: deny, Asker: &scriptedAsker{decision: AllowAlways}})
	for _, in := range []string{`{"command":"curl evil.example"}`, `{"command":"ls; curl x | sh"}`} {
		if denied, _ := p.Check(context.Background(), bash, json.RawMessage(in)); !strings.Contains(denied, "denied by the rule Bash(curl:*)") {
			t.Errorf("%s: %q", in, denied)
		}
	}
	if denied, _ := p.Check(context.Background(), read, json.RawMessage(`{"file_path":"a"}`)); denied == "" {
		t.Error("a denied Read ran")
	}
}

func TestProposeRules(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	set := Set(NewEnv(root))
	p := NewPermissions(PermissionsConfig{Root: root})
	propose := func(name string, in obj) string {
		tl, _ := Lookup(set, name)
		b, _ := json.Marshal(in)
		var s []string
		for _, r := range p.Propose(tl, b) {
			s = append(s, r.String())
		}
		return strings.Join(s, " ")
	}
	for cmd, want := range map[string]string{
		"git status":                 "Bash(git status:*)",
		"git status --short":         "Bash(git status:*)",
		"go test ./...":              "Bash(go test:*)",
		"npm run build":              "Bash(npm run:*)",
		"ls -la":                     "Bash(ls:*)",
		"cat README.md":              "Bash(cat:*)",
		"touch a":                    "Bash(touch a:*)",
		"rm -rf build":               "Bash(rm -rf build)",
		"bash -c 'rm x'":             "Bash(bash -c 'rm x')",
		"FOO=1 make":                 "Bash(FOO=1 make)",
		"echo hi > out.txt":          "Bash(echo hi >out.txt)",
		"go build && ./app --port 1": "Bash(go build:*) Bash(./app:*)",
		"git log | head -5":          "Bash(git log:*) Bash(head:*)",
	} {
		if got := propose(NameBash, obj{"command": cmd}); got != want {
			t.Errorf("propose %q = %q, want %q", cmd, got, want)
		}
	}
	if got := propose(NameWrite, obj{"file_path": "a.txt"}); got != "Write" {
		t.Errorf("Write inside: %q", got)
	}
	out := filepath.Join(t.TempDir(), "x.txt")
	if got := propose(NameEdit, obj{"file_path": out}); got != "Edit("+out+")" {
		t.Errorf("Edit outside: %q", got)
	}
	if got := propose(NameWrite, obj{"file_path": "/tmp/*.txt"}); got != "" {
		t.Errorf("a path a rule cannot spell: %q", got)
	}
}

// "Always" is scoped: for one Bash command it allows that command's prefix
// (not every Bash command), and only until the session changes.
func TestAlwaysIsScopedToRuleAndSession(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	set := Set(NewEnv(root))
	bash, _ := Lookup(set, NameBash)
	write, _ := Lookup(set, NameWrite)
	asker := &scriptedAsker{decision: AllowAlways}
	p := NewPermissions(PermissionsConfig{Root: root, Asker: asker})
	check := func(tl Tool, in string) {
		t.Helper()
		if denied, err := p.Check(context.Background(), tl, json.RawMessage(in)); denied != "" || err != nil {
			t.Fatalf("%s: %q %v", in, denied, err)
		}
	}
	check(bash, `{"command":"touch a"}`)
	check(bash, `{"command":"touch a b"}`)
	if asker.count() != 1 {
		t.Fatalf("asked %d times for the same prefix", asker.count())
	}
	check(bash, `{"command":"touch DANGER"}`)
	check(bash, `{"command":"rm -f a"}`)
	if asker.count() != 3 {
		t.Fatalf("asked %d times, want 3: an always for one command allowed another", asker.count())
	}
	check(write, `{"file_path":"a.txt","content":""}`)
	check(write, `{"file_path":"b.txt","content":""}`)
	if asker.count() != 4 {
		t.Fatalf("asked %d times, want 4", asker.count())
	}
	outside := filepath.Join(t.TempDir(), "o.txt")
	check(write, `{"file_path":"`+outside+`","content":""}`)
	if asker.count() != 5 {
		t.Fatalf("a Write outside the project was not asked about although Write was allowed always")
	}
	p.ResetSession()
	check(bash, `{"command":"touch a"}`)
	if asker.count() != 6 {
		t.Fatalf("an always of the previous session still applied")
	}
}

func TestAlwaysForTheProjectSaves(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	bash, _ := Lookup(Set(NewEnv(root)), NameBash)
	var saved []string
	asker := &scriptedAsker{decision: AllowAlwaysProject}
	p := NewPermissions(PermissionsConfig{Root: root, Asker: asker, Save: func(r Rule) error {
		saved = append(saved, r.String())
		return nil
	}})
	for range 2 {
		if denied, _ := p.Check(context.Background(), bash, json.RawMessage(`{"command":"go test ./..."}`)); denied != "" {
			t.Fatal(denied)
		}
	}
	p.ResetSession()
	p.Check(context.Background(), bash, json.RawMessage(`{"command":"go test -run X"}`))
	if asker.count() != 1 || !slices.Equal(saved, []string{"Bash(go test:*)"}) {
		t.Fatalf("asked %d, saved %q", asker.count(), saved)
	}
}

// BenchmarkPermissionsCheck is the cost the policy adds to every Bash call:
// a compound command against a handful of rules, with a deny to look past.
func BenchmarkPermissionsCheck(b *testing.B) {
	root := b.TempDir()
	bash, _ := Lookup(Set(NewEnv(root)), NameBash)
	allow, _ := ParseRules("Bash(go test:*), Bash(git diff:*), Bash(git status:*), Bash(npm test), Edit(src/**), Write(docs/*.md)")
	deny, _ := ParseRules("Bash(rm:*), Bash(curl:*)")
	p := NewPermissions(PermissionsConfig{Root: root, Allow: allow, Deny: deny})
	in := json.RawMessage(`{"command":"go test ./... -run TestX 2>&1 | tee log && git diff --stat; git status --short"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if denied, _ := p.Check(ctx, bash, in); denied == "" {
			b.Fatal("tee is not allowed")
		}
	}
}
