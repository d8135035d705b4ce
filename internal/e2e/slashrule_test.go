package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestSlashCommandRuleIsTheSameInBothFrontEnds: the REPL (here with piped
// stdin) and -p decide alike what is a slash command. A line that starts
// with a path is a message for the model in both; a misspelt command is an
// unknown command in both, and reaches no model.
func TestSlashCommandRuleIsTheSameInBothFrontEnds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line    string
		command bool
	}{
		{"/etc/hosts is empty, why?", false},
		{"/tmp/x.go fails to build", false},
		{"/compcat", true},
	} {
		for _, frontEnd := range []string{"repl", "print"} {
			t.Run(frontEnd+" "+tc.line, func(t *testing.T) {
				t.Parallel()
				w := newWorld(t, llmtest.Options{})
				w.Server.SetResponder(llmtest.Agent())
				ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
				defer cancel()
				var cmd = w.Command(ctx, "-p", tc.line)
				if frontEnd == "repl" {
					cmd = w.Command(ctx)
					cmd.Stdin = strings.NewReader(tc.line + "\n")
				}
				r := harness.Wait(t, ctx, cmd)
				sent := false
				for _, req := range w.Server.Requests() {
					for _, m := range req.Messages {
						sent = sent || strings.Contains(m.Content, tc.line)
					}
				}
				switch {
				case tc.command && (sent || !strings.Contains(r.Stderr, "unknown command")):
					t.Errorf("%q is a (misspelt) command: want \"unknown command\" and no request\n%s", tc.line, r)
				case !tc.command && (!sent || strings.Contains(r.Stderr, "slash command")):
					t.Errorf("%q is a message: want it sent to the model\n%s", tc.line, r)
				}
			})
		}
	}
}
