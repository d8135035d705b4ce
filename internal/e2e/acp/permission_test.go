package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// Where the REPL would ask, the editor is asked: the call is shown first
// (pending, an edit, with its diff), the question names it and offers
// once, always (the narrowest rule) and reject. Allowed once, the Write
// runs and the call completes; rejected, nothing is written and the model
// reads the REPL's denial; allowed always, the same command runs again
// without a question.
func TestPermissionAllowOnceRejectAndAlways(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	e := startEditor(t, w)
	e.initialize(acpsdk.ClientCapabilities{})
	sid := e.newSession().SessionId

	w.Server.Enqueue(llmtest.ToolCalls(llmtest.ToolCall{ID: "call_w1", Name: "Write", Arguments: `{"file_path":"notes.txt","content":"allowed\n"}`}), llmtest.Text("written"))
	from := e.mark()
	if resp := e.prompt(sid, "write notes"); resp.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	if data, _ := os.ReadFile(filepath.Join(w.Project, "notes.txt")); string(data) != "allowed\n" {
		t.Fatalf("notes.txt = %q after allow once", data)
	}
	asked := e.questions()
	if len(asked) != 1 || asked[0].ToolCall.ToolCallId != "call_w1" {
		t.Fatalf("questions %+v", asked)
	}
	kinds := map[acpsdk.PermissionOptionKind]string{}
	for _, o := range asked[0].Options {
		kinds[o.Kind] = string(o.OptionId)
	}
	if len(kinds) != 3 || kinds[acpsdk.PermissionOptionKindAllowOnce] == "" || kinds[acpsdk.PermissionOptionKindAllowAlways] == "" || kinds[acpsdk.PermissionOptionKindRejectOnce] == "" {
		t.Fatalf("options %+v", asked[0].Options)
	}
	var announced *acpsdk.SessionUpdateToolCall
	var statuses []acpsdk.ToolCallStatus
	for _, u := range e.since(sid, from) {
		if u.ToolCall != nil && u.ToolCall.ToolCallId == "call_w1" {
			announced = u.ToolCall
		}
		if u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == "call_w1" && u.ToolCallUpdate.Status != nil {
			statuses = append(statuses, *u.ToolCallUpdate.Status)
		}
	}
	if announced == nil || announced.Status != acpsdk.ToolCallStatusPending || announced.Kind != acpsdk.ToolKindEdit ||
		len(announced.Locations) != 1 || announced.Locations[0].Path != filepath.Join(w.Project, "notes.txt") ||
		len(announced.Content) != 1 || announced.Content[0].Diff == nil || announced.Content[0].Diff.NewText != "allowed\n" || announced.Content[0].Diff.OldText != nil {
		t.Fatalf("the call was announced as %+v", announced)
	}
	if strings.Join(statusNames(statuses), ",") != "in_progress,completed" {
		t.Fatalf("statuses %v", statuses)
	}

	// Rejected: nothing is written, the model is told as the REPL tells it.
	e.answerWith(func(acpsdk.RequestPermissionRequest) string { return "reject" })
	w.Server.Enqueue(llmtest.ToolCalls(llmtest.ToolCall{ID: "call_w2", Name: "Write", Arguments: `{"file_path":"other.txt","content":"no\n"}`}), llmtest.Text("understood"))
	from = e.mark()
	e.prompt(sid, "write other")
	if _, err := os.Stat(filepath.Join(w.Project, "other.txt")); err == nil {
		t.Fatal("a rejected Write wrote its file")
	}
	msgs := w.Server.LastRequest().Messages
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Content, "The user denied permission for Write(other.txt)") {
		t.Fatalf("the model was told %q", last.Content)
	}
	failed := false
	for _, u := range e.since(sid, from) {
		failed = failed || (u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == "call_w2" && u.ToolCallUpdate.Status != nil && *u.ToolCallUpdate.Status == acpsdk.ToolCallStatusFailed)
	}
	if !failed {
		t.Fatal("the rejected call was not marked failed")
	}

	// Always: the rule the policy proposes covers the same command after.
	e.answerWith(func(req acpsdk.RequestPermissionRequest) string {
		for _, o := range req.Options {
			if o.Kind == acpsdk.PermissionOptionKindAllowAlways && !strings.Contains(o.Name, "Bash(echo") {
				t.Errorf("the always option %q names no narrow rule", o.Name)
			}
		}
		return "allow-always"
	})
	w.Server.Enqueue(llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"echo hi"}`)), llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"echo hi"}`)), llmtest.Text("twice"))
	before := len(e.questions())
	e.prompt(sid, "say hi twice")
	if n := len(e.questions()) - before; n != 1 {
		t.Fatalf("asked %d times about the same command after always, want once", n)
	}
}

func statusNames(s []acpsdk.ToolCallStatus) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = string(x)
	}
	return out
}

// A permission question put to the editor runs the Notification hooks
// first, with Claude Code's payload, as the REPL's dialog does (issue 36
// item 5): an editor user's notifier fires too.
func TestPermissionQuestionRunsNotificationHooks(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	if err := os.MkdirAll(w.Home, 0o755); err != nil {
		t.Fatal(err)
	}
	notified := filepath.Join(w.Root, "notified.json")
	hook := "[[hooks.Notification]]\ncommand = \"cat > '" + notified + "'\"\n"
	if err := os.WriteFile(filepath.Join(w.Home, "config.toml"), []byte(hook), 0o600); err != nil {
		t.Fatal(err)
	}
	e := startEditor(t, w)
	e.initialize(acpsdk.ClientCapabilities{})
	sid := e.newSession().SessionId
	var atQuestion string
	e.answerWith(func(acpsdk.RequestPermissionRequest) string {
		data, _ := os.ReadFile(notified)
		atQuestion = string(data)
		return "allow-once"
	})
	w.Server.Enqueue(llmtest.ToolCalls(llmtest.ToolCall{ID: "call_b1", Name: "Bash", Arguments: `{"command":"echo hi"}`}), llmtest.Text("ran"))
	e.prompt(sid, "run it")
	for _, want := range []string{`"hook_event_name":"Notification"`, `"message":"clawdcode needs your permission to use Bash"`, `"notification_type":"permission_prompt"`} {
		if !strings.Contains(atQuestion, want) {
			t.Fatalf("when the editor was asked, the Notification payload was %q: it lacks %s", atQuestion, want)
		}
	}
}
