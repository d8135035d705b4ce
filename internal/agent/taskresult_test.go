package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/toolcall"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// A subagent's answer too long for the parent's context is cut, and the
// cut says the Recall call that reads it whole (in Recall's own wording,
// which Recall's paging honours); a short one is passed as it is.
func TestTaskResultCutNamesTheRecallThatReadsItWhole(t *testing.T) {
	t.Parallel()
	log := &sessionLog{reply: "5ab1e000-0000-4000-8000-000000000001"}
	long := strings.Repeat("finding\n", taskAnswerCap/4)
	out := taskResult(context.Background(), &TurnResult{Text: long}, nil, log)
	want := toolcall.RecallWhole(log.reply, tools.ScopeProject)
	if !strings.HasSuffix(out.Output, "\n"+want) || !strings.Contains(want, "Recall ref="+log.reply+" scope=project") {
		t.Fatalf("cut answer ends %q", out.Output[max(0, len(out.Output)-200):])
	}
	if out := taskResult(context.Background(), &TurnResult{Text: "short"}, nil, log); out.Output != "short" {
		t.Fatalf("short answer %q", out.Output)
	}
}
