package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestBashRulesFollowBashsGrammar: a model that asks for a second command
// hidden behind bash quoting or a comment gets a denial, and the second
// command does not run — with an allow rule for the first (-p has nobody
// to ask), and under --dangerously-skip-permissions with a deny rule for
// the second (issue 17). A command the rule does name still runs.
func TestBashRulesFollowBashsGrammar(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		command string
		flags   []string
		result  string // in the tool result the model is sent
	}{
		{"ansi-c quote under an allow", `echo $'it\'s'; touch X`, []string{"--allowed-tools", "Bash(echo:*)"},
			"Permission to use Bash was denied"},
		{"comment ending in a backslash", "git status # note \\\ntouch X", []string{"--allowed-tools", "Bash(git status:*)"},
			"Permission to use Bash was denied"},
		{"ansi-c quote under a deny", `echo $'a\'b'; touch X`,
			[]string{"--dangerously-skip-permissions", "--disallowed-tools", "Bash(touch:*)"},
			"denied by the rule Bash(touch:*)"},
		{"process substitution in a default", "echo ${1-<(touch X)}", []string{"--allowed-tools", "Bash(echo:*)"},
			"Permission to use Bash was denied"},
		{"what the rule names", `echo $'it\'s' > /dev/null; echo $'it\'s'`, []string{"--allowed-tools", "Bash(echo:*)"},
			"it's"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, llmtest.Options{})
			input, _ := json.Marshal(map[string]string{"command": tc.command})
			w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
				if r.Messages[len(r.Messages)-1].Role == chat.RoleUser {
					return llmtest.ToolCalls(llmtest.Call("Bash", string(input)))
				}
				return llmtest.Text("done")
			})
			w.MustRun(append([]string{"-p", "run it"}, tc.flags...)...)
			_, err := os.Stat(filepath.Join(w.Project, "X"))
			if created := err == nil; created {
				t.Errorf("%q: touch X ran", tc.command)
			}
			var results []string
			for _, m := range w.Server.LastRequest().Messages {
				if m.Role == chat.RoleTool {
					results = append(results, m.Content)
				}
			}
			if len(results) != 1 || !strings.Contains(results[0], tc.result) {
				t.Errorf("%q: the model was sent %q, want %q in it", tc.command, results, tc.result)
			}
		})
	}
}
