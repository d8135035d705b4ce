package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// set_mode plan: a Write is refused without a question, the model is told
// to present its plan; the plan it hands over (ExitPlanMode) is put to the
// editor, and approving it leaves plan mode — told to the editor as the
// agent's own change of mode — and the model carries the plan out in the
// same turn, its Write now run without a question.
func TestPlanModeRefusesWriteAndApprovalLeavesIt(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := startEditor(t, w)
	e.initialize(acpsdk.ClientCapabilities{})
	sid := e.newSession().SessionId
	if _, err := e.conn.SetSessionMode(e.ctx(), acpsdk.SetSessionModeRequest{SessionId: sid, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.conn.SetSessionMode(e.ctx(), acpsdk.SetSessionModeRequest{SessionId: sid, ModeId: "yolo"}); err == nil {
		t.Fatal("set_mode accepted a mode it does not offer")
	}
	e.answerWith(func(req acpsdk.RequestPermissionRequest) string {
		if req.ToolCall.Kind == nil || *req.ToolCall.Kind != acpsdk.ToolKindSwitchMode {
			t.Errorf("asked about %+v in plan mode", req.ToolCall)
			return "reject"
		}
		return "approve-accept-edits"
	})
	w.Server.Enqueue(llmtest.ToolCalls(llmtest.ToolCall{ID: "call_w", Name: "Write", Arguments: `{"file_path":"plan.txt","content":"x"}`}),
		llmtest.ToolCalls(llmtest.Call("ExitPlanMode", `{"plan":"1. Write plan.txt."}`)),
		llmtest.ToolCalls(llmtest.Call("Write", `{"file_path":"plan.txt","content":"x"}`)), llmtest.Text("done"))
	from := e.mark()
	e.prompt(sid, "make plan.txt")
	reqs := w.Server.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	told := ""
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" {
			told = m.Content
		}
	}
	if !strings.Contains(told, "plan mode is on") {
		t.Fatalf("the model was told %q of its Write in plan mode", told)
	}
	if q := e.questions(); len(q) != 1 {
		t.Fatalf("%d questions, want the plan's approval only", len(q))
	}
	mode := e.waitFor(sid, from, "current_mode_update", func(u acpsdk.SessionUpdate) bool { return u.CurrentModeUpdate != nil })
	if mode.CurrentModeUpdate.CurrentModeId != "acceptEdits" {
		t.Fatalf("mode now %q", mode.CurrentModeUpdate.CurrentModeId)
	}
	// Approved with accept edits: the plan's Write ran in the same turn,
	// without a question.
	if data, _ := os.ReadFile(filepath.Join(w.Project, "plan.txt")); string(data) != "x" || len(e.questions()) != 1 {
		t.Fatalf("plan.txt = %q after %d questions", data, len(e.questions()))
	}
}
