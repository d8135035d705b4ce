package e2e

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestEndlessReplyFailsTheRun: issue 13 item 9 through the binary. A
// server that streams without end made clawdcode grow without bound and
// never fail; now the run fails with one clear line, and nothing of the
// half-streamed reply is stored (only the marker of a failed answer).
func TestEndlessReplyFailsTheRun(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(func(llmtest.Request) llmtest.Reply { return llmtest.Endless("") })
	r := w.Run("-p", "tell me everything")
	if r.Code != 1 {
		t.Fatalf("want exit 1\n%s", r)
	}
	if line := oneErrorLine(t, r); !strings.Contains(line, "without ending the reply") {
		t.Errorf("the error does not say the reply ran away: %q", line)
	}
	for _, path := range w.sessionFiles() {
		for _, rec := range parseSession(t, path).records {
			if rec.Type == "assistant" && rec.Message != nil && strings.Contains(rec.Message.Content, "All work and no play") {
				t.Errorf("the half-streamed reply was stored (%d bytes)", len(rec.Message.Content))
			}
		}
	}
	if n := len(w.Server.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}
