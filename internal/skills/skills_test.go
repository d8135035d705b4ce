package skills

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestFrontMatter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text string
		want       meta
		body       string
		bad        bool
	}{
		{"plain", "---\nname: pdf\ndescription: Fill forms.\n---\nBody\n", meta{Name: "pdf", Description: "Fill forms."}, "Body\n", false},
		{"quoted and folded", "---\nname: 'x'\ndescription: >\n  two\n  lines\n---\nB", meta{Name: "x", Description: "two lines"}, "B", false},
		{"tools string", "---\nname: a\nallowed-tools: Read, Bash(git diff:*), Grep\n---\n", meta{Name: "a", AllowedTools: toolList{"Read", "Bash(git diff:*)", "Grep"}}, "", false},
		{"tools list", "---\nname: a\nallowed-tools:\n  - Read\n  - Bash(a, b)\n---\n", meta{Name: "a", AllowedTools: toolList{"Read", "Bash(a, b)"}}, "", false},
		{"crlf", "---\r\nname: a\r\n---\r\nB\r\n", meta{Name: "a"}, "B\n", false},
		{"none", "Just text", meta{}, "Just text", false},
		{"unclosed", "---\nname: a\n", meta{}, "", true},
		{"not yaml", "---\nname: [a\n---\n", meta{}, "", true},
	}
	for _, c := range cases {
		m, body, err := frontMatter(c.text)
		if (err != nil) != c.bad {
			t.Errorf("%s: error %v", c.name, err)
			continue
		}
		if c.bad {
			continue
		}
		if m.Name != c.want.Name || m.Description != c.want.Description || !slices.Equal(m.AllowedTools, c.want.AllowedTools) || body != c.body {
			t.Errorf("%s: got %+v %q, want %+v %q", c.name, m, body, c.want, c.body)
		}
	}
}

func writeSkill(t *testing.T, dir, name, text string) string {
	t.Helper()
	folder := filepath.Join(dir, name)
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, FileName), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return folder
}

// TestLoadPrecedenceAndRefusals: the earlier folder wins a name; a
// project skill's folder that is a link, and a skill without a
// description, are left out with a warning.
func TestLoadPrecedenceAndRefusals(t *testing.T) {
	t.Parallel()
	root, home, secret := t.TempDir(), t.TempDir(), t.TempDir()
	proj := filepath.Join(root, ".clawdcode", "skills")
	writeSkill(t, proj, "commit", "---\ndescription: the project's\n---\nP")
	writeSkill(t, filepath.Join(home, "skills"), "commit", "---\ndescription: the user's\n---\nU")
	writeSkill(t, filepath.Join(home, "skills"), "nodesc", "---\nname: nodesc\n---\nU")
	writeSkill(t, secret, "keys", "---\ndescription: keys\n---\nK")
	if err := os.Symlink(filepath.Join(secret, "keys"), filepath.Join(proj, "keys")); err != nil {
		t.Fatal(err)
	}
	var warned []string
	got := Load(Dirs(root, home), func(m string) { warned = append(warned, m) })
	if len(got) != 1 || got[0].Description != "the project's" || !got[0].Project {
		t.Fatalf("skills %+v", got)
	}
	joined := strings.Join(warned, "\n")
	if len(warned) != 2 || !strings.Contains(joined, "symbolic link") || !strings.Contains(joined, "no description") {
		t.Fatalf("warnings %q", warned)
	}
}

// TestToolReadsOnUse: the body and a file beside it are read when asked
// for; nothing outside the folder is.
func TestToolReadsOnUse(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	folder := writeSkill(t, filepath.Join(home, "skills"), "pdf", "---\ndescription: Fill forms.\n---\nUse pdftk.")
	os.WriteFile(filepath.Join(folder, "forms.md"), []byte("fields"), 0o644)
	os.WriteFile(filepath.Join(home, "outside.txt"), []byte("secret"), 0o644)
	set := NewSet([]Dir{{Path: filepath.Join(home, "skills")}}, nil)
	tool := NewTool(set, nil)
	if d := tool.Definition().Description; !strings.Contains(d, "- pdf: Fill forms.") || strings.Contains(d, "pdftk") {
		t.Fatalf("description %q", d)
	}
	run := func(args map[string]string) (string, string) {
		in, _ := json.Marshal(args)
		res := tool.Run(context.Background(), in)
		return res.Output, res.Error
	}
	if out, _ := run(map[string]string{"name": "PDF"}); !strings.Contains(out, "Use pdftk.") || !strings.Contains(out, "- forms.md") {
		t.Fatalf("use: %q", out)
	}
	if out, _ := run(map[string]string{"name": "pdf", "file": "forms.md"}); out != "fields" {
		t.Fatalf("file: %q", out)
	}
	for _, f := range []string{"../outside.txt", filepath.Join(home, "outside.txt"), "missing.md"} {
		if out, errText := run(map[string]string{"name": "pdf", "file": f}); errText == "" || strings.Contains(out, "secret") {
			t.Fatalf("file %s: %q %q", f, out, errText)
		}
	}
	if _, errText := run(map[string]string{"name": "nope"}); !strings.Contains(errText, "the skills are: pdf") {
		t.Fatalf("unknown: %q", errText)
	}
}

// TestRefresh: a skill added later is seen at the next Refresh.
func TestRefresh(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "skills")
	set := NewSet([]Dir{{Path: dir}}, nil)
	if set.Refresh() || len(set.List()) != 0 {
		t.Fatal("a change without a change")
	}
	writeSkill(t, dir, "new", "---\ndescription: d\n---\nB")
	if !set.Refresh() || len(set.List()) != 1 {
		t.Fatalf("the new skill was not seen: %+v", set.List())
	}
}
