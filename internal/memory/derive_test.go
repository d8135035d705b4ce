package memory

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/storage"
)

func TestDeriveFromASessionFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p, err := storage.NewStore(t.TempDir()).Project(root)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := p.Create(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	add := func(r *storage.Record) string {
		n++
		r.UUID = "u" + strings.Repeat("0", 10) + string(rune('a'+n))
		_, err := sess.Append(r)
		if err != nil {
			t.Fatal(err)
		}
		return r.UUID
	}
	call := func(id, name string, input map[string]string, failed bool) (string, string) {
		in, _ := json.Marshal(input)
		u := add(&storage.Record{Type: storage.TypeToolUse, Tool: &storage.ToolUse{ID: id, Name: name, Input: in}})
		res := &storage.ToolResult{ID: id, Output: "out"}
		if failed {
			res.Error = "exit status 1"
		}
		return u, add(&storage.Record{Type: storage.TypeToolResult, ToolResult: res})
	}
	user := func(text string) string {
		return add(&storage.Record{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: text}})
	}
	user("fix the parser")
	call("c1", "Bash", map[string]string{"command": "go test ./..."}, true)
	// Tool names match without case (CONTRACT §3): "bash" and "edit" ran.
	passCall, passResult := call("c2", "bash", map[string]string{"command": "go  test ./..."}, false)
	call("c3", "edit", map[string]string{"file_path": filepath.Join(root, "parse.go")}, false)
	_, lastEdit := call("c4", "Write", map[string]string{"file_path": "parse.go"}, false)
	_ = lastEdit
	call("c5", "Edit", map[string]string{"file_path": "once.go"}, false)
	correction := user("no, use the table-driven style")
	user("no, use it anyway") // not right after an action: no correction
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}

	got, err := Derive(t.Context(), sess.Path(), 0, root)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, s := range got {
		texts = append(texts, s.Kind+": "+s.Text)
	}
	want := []string{
		"test-command: Run the tests with `go test ./...`",
		"files: Files most worked on: parse.go",
		"correction: The user corrected the agent: no, use the table-driven style",
	}
	if strings.Join(texts, "\n") != strings.Join(want, "\n") {
		t.Fatalf("derived:\n%s\nwant:\n%s", strings.Join(texts, "\n"), strings.Join(want, "\n"))
	}
	if refs := got[0].Source.Refs; len(refs) != 2 || refs[0] != passCall || refs[1] != passResult {
		t.Fatalf("the test command's refs are %v, want the passing call %s and its result %s", refs, passCall, passResult)
	}
	if refs := got[2].Source.Refs; refs[len(refs)-1] != correction {
		t.Fatalf("the correction's refs %v lack its message %s", refs, correction)
	}
}

// TestDeriveFromAnOffset: a resumed session's suggestions come from what
// this run appended, not from the records before.
func TestDeriveFromAnOffset(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p, err := storage.NewStore(t.TempDir()).Project(root)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := p.Create(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var offs []int64
	for i, cmd := range []string{"go test ./...", "go build ./..."} {
		id := string(rune('a' + i))
		in, _ := json.Marshal(map[string]string{"command": cmd})
		for _, r := range []*storage.Record{
			{Type: storage.TypeToolUse, Tool: &storage.ToolUse{ID: id, Name: "Bash", Input: in}},
			{Type: storage.TypeToolResult, ToolResult: &storage.ToolResult{ID: id, Output: "ok"}},
		} {
			off, err := sess.Append(r)
			if err != nil {
				t.Fatal(err)
			}
			offs = append(offs, off)
		}
	}
	sess.Close()
	got, err := Derive(t.Context(), sess.Path(), offs[2], root)
	if err != nil || len(got) != 1 || got[0].Kind != KindBuild {
		t.Fatalf("from the second call: %+v, %v", got, err)
	}
}
