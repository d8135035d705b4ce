package ledger

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// Read takes each call with its result, whatever the case of the tool's
// name: a lower-case edit is an edit, a MultiEdit (an imported Claude
// Code session's) counts its edits' lines, a failed read is an error.
func TestReadClassifiesEveryCall(t *testing.T) {
	t.Parallel()
	var recs []*storage.Record
	call := func(id, name string, input any, res storage.ToolResult) {
		in, _ := json.Marshal(input)
		res.ID = id
		recs = append(recs,
			&storage.Record{Type: storage.TypeToolUse, UUID: "u-" + id, Tool: &storage.ToolUse{ID: id, Name: name, Input: in}},
			&storage.Record{Type: storage.TypeToolResult, UUID: "r-" + id, ToolResult: &res})
	}
	call("1", "edit", map[string]string{"file_path": "/p/a.go", "old_string": "x", "new_string": "y\nz"}, storage.ToolResult{Output: "ok"})
	call("2", "MultiEdit", map[string]any{"file_path": "b.go", "edits": []map[string]string{{"old_string": "a", "new_string": "b"}, {"old_string": "c\nd", "new_string": "e"}}}, storage.ToolResult{Output: "ok"})
	call("3", "bash", map[string]string{"command": "go test ./..."}, storage.ToolResult{Output: "FAIL x\n", Error: "exit status 1"})
	call("4", "READ", map[string]string{"file_path": "gone.go"}, storage.ToolResult{Error: "no such file"})
	l := Read("/p", slices.Values(recs))
	want := []storage.LedgerFile{{Path: "a.go", Op: "edit", Lines: "-1 +2", Ref: "u-1"}, {Path: "b.go", Op: "edit", Lines: "-3 +2", Ref: "u-2"}}
	if !slices.Equal(l.Files, want) {
		t.Errorf("files %+v, want %+v", l.Files, want)
	}
	if len(l.Commands) != 1 || l.Commands[0].Command != "go test ./..." || l.Commands[0].Exit != 1 {
		t.Errorf("commands %+v", l.Commands)
	}
	if len(l.Errors) != 1 || l.Errors[0].Source != "Read gone.go" {
		t.Errorf("errors %+v", l.Errors)
	}
}
