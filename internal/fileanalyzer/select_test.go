package fileanalyzer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
)

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

func call(name, args string) chat.Message {
	return chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c", Name: name, Arguments: args}}}
}

func fileArg(key, path string) string {
	return fmt.Sprintf(`{%q: %q}`, key, path)
}

func user(text string) chat.Message { return chat.Message{Role: chat.RoleUser, Content: text} }

func paths(files []File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

func TestSelectRanksModifiedThenMentionsThenRecency(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"edited.go": "package a\n", "written.go": "package b\n",
		"popular.go": "x\n", "recent.go": "y\n", "older.go": "z\n",
	})
	msgs := []chat.Message{
		user("look at popular.go and older.go"),
		call("Read", fileArg("file_path", "popular.go")),
		{Role: chat.RoleTool, ToolCallID: "c", Content: "popular.go: x"},
		call("Edit", `{"file_path": "edited.go", "old_string": "a", "new_string": "b"}`),
		user("and recent.go"),
		call("Write", fileArg("file_path", filepath.Join(root, "written.go"))),
		user("popular.go again"),
	}
	got, err := Select(root, msgs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Both modified first (written.go later, so first); popular.go has 4
	// mentions; recent.go and older.go one each, recent.go seen later.
	want := []string{"written.go", "edited.go", "popular.go", "recent.go", "older.go"}
	if strings.Join(paths(got), " ") != strings.Join(want, " ") {
		t.Fatalf("order = %q, want %q", paths(got), want)
	}
	if !got[0].Modified || !got[1].Modified || got[2].Modified {
		t.Errorf("Modified flags wrong: %+v", got)
	}
	if got[2].Mentions != 4 {
		t.Errorf("popular.go Mentions = %d, want 4 (2 user texts, 1 tool result, 1 Read)", got[2].Mentions)
	}
	if got[0].Content != "package b\n" {
		t.Errorf("content = %q, want the file as on disk", got[0].Content)
	}
}

// A model that spells a tool's name in lower case (CONTRACT §3: names
// match without case) changed the file all the same: it ranks modified.
func TestSelectReadsToolNamesWithoutCase(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"edited.go": "a\n", "written.go": "b\n", "read.go": "c\n"})
	msgs := []chat.Message{
		call("edit", `{"file_path": "edited.go", "old_string": "a", "new_string": "b"}`),
		call("WRITE", fileArg("file_path", "written.go")),
		call("read", fileArg("file_path", "read.go")),
	}
	got, err := Select(root, msgs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "written.go edited.go read.go"; strings.Join(paths(got), " ") != want || !got[0].Modified || !got[1].Modified || got[2].Modified {
		t.Fatalf("got %+v, want %s with the first two modified", got, want)
	}
	touched, _ := Touched(root, msgs)
	if strings.Join(touched, " ") != "edited.go written.go read.go" {
		t.Fatalf("Touched = %q", touched)
	}
}

func TestSelectTakesTopMaxFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	var msgs []chat.Message
	for i := 0; i < 8; i++ {
		name := fmt.Sprintf("f%d.txt", i)
		writeFiles(t, root, map[string]string{name: name})
		msgs = append(msgs, user("touching "+name))
	}
	got, err := Select(root, msgs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"f7.txt", "f6.txt", "f5.txt", "f4.txt", "f3.txt"}; strings.Join(paths(got), " ") != strings.Join(want, " ") {
		t.Fatalf("got %q, want the 5 most recent %q", paths(got), want)
	}
	got, _ = Select(root, msgs, Options{MaxFiles: 2})
	if len(got) != 2 {
		t.Fatalf("MaxFiles 2: got %d files", len(got))
	}
}

func TestSelectReadsCurrentContentAndSkipsWhatIsGone(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"kept.go": "old\n", "gone.go": "bye\n"})
	msgs := []chat.Message{
		call("Write", `{"file_path": "gone.go", "content": "bye\n"}`),
		call("Write", `{"file_path": "kept.go", "content": "old\n"}`),
	}
	if err := os.Remove(filepath.Join(root, "gone.go")); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, map[string]string{"kept.go": "new\n"})
	got, err := Select(root, msgs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != "kept.go" || got[0].Content != "new\n" {
		t.Fatalf("got %+v, want only kept.go with its current content", got)
	}
}

func TestSelectCapsLinesAndBytes(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	var long strings.Builder
	for i := 1; i <= 1500; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	writeFiles(t, root, map[string]string{
		"long.txt":    long.String(),
		"exact.txt":   strings.Repeat("x\n", 1000),
		"oneline.txt": strings.Repeat("é", 100),
		"nonl.txt":    "a\nb",
	})
	tests := []struct {
		name      string
		opt       Options
		wantLines int
		wantLen   int
		truncated bool
	}{
		{"long.txt", Options{}, 1000, -1, true},
		{"exact.txt", Options{}, 1000, 2000, false},
		{"long.txt", Options{MaxLines: 10}, 10, -1, true},
		{"long.txt", Options{MaxBytes: 20}, 2, 14, true},    // whole lines under the byte cap
		{"oneline.txt", Options{MaxBytes: 11}, 0, 10, true}, // no newline: cut between characters
		{"nonl.txt", Options{MaxLines: 1}, 1, 2, true},
		{"nonl.txt", Options{}, 1, 3, false},
	}
	for _, tt := range tests {
		got, err := Select(root, []chat.Message{user(tt.name)}, tt.opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 {
			t.Fatalf("%s %+v: got %d files", tt.name, tt.opt, len(got))
		}
		f := got[0]
		if n := strings.Count(f.Content, "\n"); n != tt.wantLines || f.Truncated != tt.truncated || (tt.wantLen >= 0 && len(f.Content) != tt.wantLen) {
			t.Errorf("%s %+v: %d lines, %d bytes, truncated %v; want %d lines, %d bytes, truncated %v",
				tt.name, tt.opt, n, len(f.Content), f.Truncated, tt.wantLines, tt.wantLen, tt.truncated)
		}
		if tt.name == "long.txt" && !strings.HasPrefix(f.Content, "line 1\nline 2\n") {
			t.Errorf("content does not start at the top: %q", f.Content[:20])
		}
	}
}

func TestSelectDedupesRelativeAndAbsolute(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"pkg/a.go": "package pkg\n", "b.go": "package b\n"})
	msgs := []chat.Message{
		call("Read", fileArg("file_path", filepath.Join(root, "pkg", "a.go"))),
		user("changed ./pkg/a.go and pkg/../pkg/a.go"),
		{Role: chat.RoleTool, ToolCallID: "c", Content: "pkg/a.go:1: package pkg"},
		user("b.go"),
	}
	got, err := Select(root, msgs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Path != filepath.Join("pkg", "a.go") || got[0].Mentions != 3 {
		t.Fatalf("got %+v, want pkg/a.go once with 3 mentions, then b.go", got)
	}
}

func TestSelectIgnoresMalformedArguments(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a.go": "a\n", "b.go": "b\n"})
	msgs := []chat.Message{
		call("Write", `{"file_path": "a.go", "content": "trunc`),
		call("Edit", `not json at all`),
		call("Write", `{"file_path": 42}`),
		call("Read", `{"file_path": "b.go"}`),
		call("UnknownTool", `{"file_path": "a.go"}`),
	}
	got, err := Select(root, msgs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != "b.go" || got[0].Modified {
		t.Fatalf("got %+v, want only b.go, unmodified", got)
	}
}

func TestSelectOutsideRootNeedsAToolCall(t *testing.T) {
	t.Parallel()
	root, outside := t.TempDir(), t.TempDir()
	writeFiles(t, outside, map[string]string{"read.txt": "r\n", "pasted.txt": "p\n"})
	readPath, pastedPath := filepath.Join(outside, "read.txt"), filepath.Join(outside, "pasted.txt")
	msgs := []chat.Message{
		user("a log mentioning " + pastedPath + " twice: " + pastedPath),
		call("Read", fileArg("file_path", readPath)),
	}
	got, err := Select(root, msgs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != readPath {
		t.Fatalf("got %q, want only the absolute path a tool read (%s)", paths(got), readPath)
	}
}

func TestSelectSkipsWhatIsNotARegularTextFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"dir.d/x.txt": "x\n", "bin.dat": "ab\x00cd", "real.txt": "text\n",
	})
	if err := os.Symlink(filepath.Join(root, "real.txt"), filepath.Join(root, "link.txt")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	msgs := []chat.Message{
		call("Grep", `{"pattern": "x", "path": "dir.d"}`),
		user("bin.dat link.txt dir.d"),
		call("Edit", `{"file_path": "link.txt"}`),
		user("real.txt"),
	}
	got, err := Select(root, msgs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != "real.txt" {
		t.Fatalf("got %q, want only real.txt", paths(got))
	}
}

func TestSelectFindsPathsInBashCommands(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"cmd/run_test.go": "package cmd\n"})
	got, err := Select(root, []chat.Message{call("Bash", `{"command": "go test ./cmd/run_test.go"}`)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != filepath.Join("cmd", "run_test.go") || got[0].Modified {
		t.Fatalf("got %+v, want cmd/run_test.go as a mention", got)
	}
}

func TestSelectIgnoresSystemPrompt(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"AGENTS.md": "rules\n"})
	got, err := Select(root, []chat.Message{{Role: chat.RoleSystem, Content: "Follow AGENTS.md"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("got %q from the system prompt, want nothing", paths(got))
	}
}

func TestSelectRootErrors(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"file.txt": "x"})
	if _, err := Select(filepath.Join(root, "file.txt"), nil, Options{}); !errors.Is(err, ErrRootNotDir) {
		t.Errorf("root is a file: err = %v, want ErrRootNotDir", err)
	}
	if _, err := Select(filepath.Join(root, "missing"), nil, Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("root missing: err = %v, want not-exist", err)
	}
	if got, err := Select(root, nil, Options{}); err != nil || len(got) != 0 {
		t.Errorf("empty history: %v, %v", got, err)
	}
}
