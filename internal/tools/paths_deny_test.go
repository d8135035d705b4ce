package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A path denied to one tool is denied to every tool that reads or writes
// it: a Read deny keeps Grep from its lines and Glob from its name (and
// Edit from changing it), an Edit deny keeps Write out (issue 32).
func TestAPathDeniedToOneToolIsDeniedToEvery(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		".env": "PASSWORD=hunter2\n", "src/a.go": "package a // hunter2 is not here\n", "notes.txt": "hunter2 in notes\n",
	})
	deny, err := ParseRules("Read(.env),Edit(src/**)")
	if err != nil {
		t.Fatal(err)
	}
	perms := NewPermissions(PermissionsConfig{Root: root, Allow: []Rule{{tool: NameWrite}, {tool: NameEdit}}, Deny: deny})
	env := NewEnv(root)
	env.HideFromSearch(perms.DeniesRead)
	set := Set(env)
	call := func(name string, in obj) (denied, out string) {
		t.Helper()
		tool, _ := Lookup(set, name)
		raw, _ := json.Marshal(in)
		denied, err := perms.Check(context.Background(), tool, raw)
		if err != nil {
			t.Fatal(err)
		}
		if denied != "" {
			return denied, ""
		}
		return "", tool.Run(context.Background(), raw).Output
	}
	if denied, out := call(NameGrep, obj{"pattern": "hunter2"}); denied != "" || strings.Contains(out, "PASSWORD") ||
		!strings.Contains(out, "notes.txt") {
		t.Errorf("Grep of the project: denied %q, output %q; want the notes without .env", denied, out)
	}
	if denied, _ := call(NameGrep, obj{"pattern": "hunter2", "path": ".env"}); !strings.Contains(denied, "Read(.env)") {
		t.Errorf("Grep of .env: denied %q", denied)
	}
	if denied, out := call(NameGlob, obj{"pattern": "**/*"}); denied != "" || strings.Contains(out, ".env") || !strings.Contains(out, "notes.txt") {
		t.Errorf("Glob: denied %q, output %q; want the files without .env", denied, out)
	}
	if denied, _ := call(NameWrite, obj{"file_path": "src/a.go", "content": "x"}); !strings.Contains(denied, "Edit(src/**)") {
		t.Errorf("Write under an Edit deny: denied %q", denied)
	}
	if denied, _ := call(NameEdit, obj{"file_path": ".env", "old_string": "hunter2", "new_string": "x"}); !strings.Contains(denied, "Read(.env)") {
		t.Errorf("Edit of a file Read may not read: denied %q", denied)
	}
	if denied, _ := call(NameWrite, obj{"file_path": "notes.txt", "content": "x"}); denied != "" {
		t.Errorf("Write elsewhere: denied %q", denied)
	}
}

// Write and Edit never touch .git/ without asking: not under an allowance
// for the tool, not in accept-edits mode; bypass mode and a rule of their
// own do (issue 32: a core.fsmonitor command written into .git/config runs
// with the next git status).
func TestWritesToGitDirAskInEveryModeButBypass(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{".git/config": "[core]\n", "a.txt": "a\n"})
	write, _ := Lookup(Set(NewEnv(root)), NameWrite)
	check := func(cfg PermissionsConfig, path string) string {
		t.Helper()
		cfg.Root = root
		in, _ := json.Marshal(obj{"file_path": path, "content": "[core]\n\tfsmonitor = touch X\n"})
		denied, err := NewPermissions(cfg).Check(context.Background(), write, in)
		if err != nil {
			t.Fatal(err)
		}
		return denied
	}
	own, _ := ParseRules("Write(.git/config)")
	for _, path := range []string{".git/config", ".git/hooks/pre-commit", filepath.Join(root, ".git", "config")} {
		if d := check(PermissionsConfig{Mode: ModeAcceptEdits}, path); !strings.Contains(d, "git runs") {
			t.Errorf("accept-edits, %s: denied %q", path, d)
		}
		if d := check(PermissionsConfig{Allow: []Rule{{tool: NameWrite}}}, path); d == "" {
			t.Errorf("under an allowance for Write, %s was written", path)
		}
		if d := check(PermissionsConfig{SkipAll: true}, path); d != "" {
			t.Errorf("bypass, %s: denied %q", path, d)
		}
	}
	if d := check(PermissionsConfig{Allow: own}, ".git/config"); d != "" {
		t.Errorf("a rule of its own: denied %q", d)
	}
	if d := check(PermissionsConfig{Mode: ModeAcceptEdits}, "a.txt"); d != "" {
		t.Errorf("accept-edits, a.txt: denied %q", d)
	}
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
