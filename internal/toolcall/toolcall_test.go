package toolcall

import (
	"encoding/json"
	"testing"
)

// A call is read the same however the model spelt the tool's name.
func TestClassify(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, input string
		want        Call
	}{
		{"Edit", `{"file_path":"a.go","old_string":"x","new_string":"y"}`, Call{Tool: Edit, Known: true, Effect: Changes, Path: "a.go"}},
		{"edit", `{"file_path":"a.go"}`, Call{Tool: Edit, Known: true, Effect: Changes, Path: "a.go"}},
		{"WRITE", `{"file_path":"/p/b.go","content":"z"}`, Call{Tool: Write, Known: true, Effect: Changes, Path: "/p/b.go"}},
		{"multiedit", `{"file_path":"c.go","edits":[]}`, Call{Tool: MultiEdit, Known: true, Effect: Changes, Path: "c.go"}},
		{"read", `{"file_path":"d.go"}`, Call{Tool: Read, Known: true, Effect: Reads, Path: "d.go"}},
		{"grep", `{"pattern":"x","path":"src"}`, Call{Tool: Grep, Known: true, Effect: Searches, Path: "src"}},
		{"Glob", `{"pattern":"*.go"}`, Call{Tool: Glob, Known: true, Effect: Searches}},
		{"bash", `{"command":"go test ./..."}`, Call{Tool: Bash, Known: true, Command: "go test ./..."}},
		{"todowrite", `{"todos":[]}`, Call{Tool: TodoWrite, Known: true}},
		{"Edit", `{"file_path":`, Call{Tool: Edit, Known: true, Effect: Changes}},
		{"mcp__fs__edit", `{"file_path":"e.go"}`, Call{Tool: "mcp__fs__edit"}},
	}
	for _, tc := range cases {
		if got := Classify(tc.name, json.RawMessage(tc.input)); got != tc.want {
			t.Errorf("Classify(%q, %s) = %+v, want %+v", tc.name, tc.input, got, tc.want)
		}
	}
}

func TestReadsOrChanges(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		c    Call
		want bool
	}{
		{Call{Effect: Reads, Path: "a"}, true},
		{Call{Effect: Changes, Path: "a"}, true},
		{Call{Effect: Changes}, false},
		{Call{Effect: Searches, Path: "a"}, false},
		{Call{Command: "ls"}, false},
	} {
		if got := tc.c.ReadsOrChanges(); got != tc.want {
			t.Errorf("%+v.ReadsOrChanges() = %v, want %v", tc.c, got, tc.want)
		}
	}
}

func TestRel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ root, p, want string }{
		{"/p", "/p/src/a.go", "src/a.go"},
		{"/p", "src/a.go", "src/a.go"},
		{"/p", "/q/a.go", "/q/a.go"},
		{"", "/p/a.go", "/p/a.go"},
	} {
		if got := Rel(tc.root, tc.p); got != tc.want {
			t.Errorf("Rel(%q, %q) = %q, want %q", tc.root, tc.p, got, tc.want)
		}
	}
}
