package cli

import (
	"encoding/json"
	"testing"
)

// TestDescribeCall: the line -p and sessions show write for a call names
// what it does, for every tool with such an argument — not "MCPSearch()".
func TestDescribeCall(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, input, want string }{
		{"Read", `{"file_path":"a.go"}`, "Read(a.go)"},
		{"Bash", `{"command":"go test ./..."}`, "Bash(go test ./...)"},
		{"Grep", `{"pattern":"func","path":"cmd"}`, "Grep(func in cmd)"},
		{"WebFetch", `{"url":"https://go.dev/doc","prompt":"x"}`, "WebFetch(https://go.dev/doc)"},
		{"MCPSearch", `{"query":"greet"}`, "MCPSearch(greet)"},
		{"Task", `{"description":"explore task","prompt":"look","subagent_type":"explore"}`, "Task(explore task)"},
		{"Skill", `{"name":"pdf"}`, "Skill(pdf)"},
		{"BashOutput", `{"bash_id":"bash_2"}`, "BashOutput(bash_2)"},
		{"KillShell", `{"shell_id":"bash_2"}`, "KillShell(bash_2)"},
		{"TodoWrite", `{"todos":[]}`, "TodoWrite()"},
	} {
		if got := describeCall(c.name, json.RawMessage(c.input)); got != c.want {
			t.Errorf("describeCall(%s, %s) = %q, want %q", c.name, c.input, got, c.want)
		}
	}
}
