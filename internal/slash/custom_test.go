package slash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExpandCustom(t *testing.T) {
	t.Parallel()
	cases := []struct{ tmpl, args, want string }{
		{"Fix $ARGUMENTS now", "issue 12", "Fix issue 12 now"},
		{"Compare $1 with $2", `a.go "b c.go"`, "Compare a.go with b c.go"},
		{"Missing $3 stays empty", "one", "Missing  stays empty"},
		{"No placeholders", "extra words", "No placeholders\n\nArguments: extra words"},
		{"No placeholders", "", "No placeholders"},
		{"Price is $5 or $x", "a b c d e", "Price is e or $x"},
		{"Keep $10 literal", "a", "Keep $10 literal\n\nArguments: a"},
	}
	for _, c := range cases {
		if got := expandCustom(c.tmpl, c.args); got != c.want {
			t.Errorf("expandCustom(%q, %q) = %q, want %q", c.tmpl, c.args, got, c.want)
		}
	}
}

func TestLoadCustomPrecedenceAndWarnings(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	project, user := filepath.Join(root, "p"), filepath.Join(root, "u")
	write := func(dir, name, body string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(project, "deploy.md", "---\ndescription: Deploy it\n---\nDeploy $1")
	write(user, "deploy.md", "user deploy")
	write(user, "HELP.md", "shadow help")
	write(user, "bad name.md", "x")
	write(user, "empty.md", "---\ndescription: nothing\n---\n")
	write(user, "notes.txt", "not a command")

	r := Default()
	warnings := r.LoadCustom([]string{project, user})
	joined := strings.Join(warnings, "\n")
	for _, want := range []string{"HELP.md ignored: /help is a built-in", "bad name.md ignored", "empty.md ignored: the file has no prompt text"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings %q lack %q", joined, want)
		}
	}
	if len(warnings) != 3 {
		t.Errorf("%d warnings, want 3: %q", len(warnings), warnings)
	}
	p, ok := r.Expand("/deploy staging")
	if !ok || p != "Deploy staging" {
		t.Fatalf("Expand = %q, %v; want the project's command", p, ok)
	}
	c, _ := r.Lookup("deploy")
	if c.Summary != "Deploy it (custom)" {
		t.Errorf("summary %q", c.Summary)
	}
	if _, ok := r.Expand("/help"); ok {
		t.Error("a built-in command expanded")
	}
	if _, ok := r.Expand("/etc/hosts is empty"); ok {
		t.Error("a path expanded")
	}
}
