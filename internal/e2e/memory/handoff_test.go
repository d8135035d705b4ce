package memory

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// conversation runs a session of a few turns and returns its id.
func conversation(t *testing.T, w *world) string {
	t.Helper()
	id := w.runJSON("-p", "the first request: make the parser strict").SessionID
	for i := range 4 {
		w.runJSON("-c", "-p", fmt.Sprintf("request %d: more work on the parser", i))
	}
	return id
}

// TestPreviewWritesNothing: /compact --preview as the -p prompt prints the
// draft summary and its receipt, asks the summariser, and leaves the
// session file as it was.
func TestPreviewWritesNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	id := conversation(t, w)
	path := w.sessionPath(id)
	before := readBytes(t, path)
	from := len(w.Server.Requests())
	r := w.MustRun("-c", "-p", "/compact --preview keep the parser decisions")
	for _, want := range []string{"Draft summary (not applied", forgetfulSummary, "Receipt:", "Nothing was changed."} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("the preview does not print %q:\n%s", want, r.Stdout)
		}
	}
	asked := false
	for _, q := range w.Server.Requests()[from:] {
		if isSummaryRequest(q) {
			asked = strings.HasSuffix(strings.TrimSpace(q.Messages[len(q.Messages)-1].Content), "keep the parser decisions")
		}
	}
	if !asked {
		t.Error("the preview did not ask the summariser with the instructions last")
	}
	if !bytes.Equal(readBytes(t, path), before) {
		t.Fatal("/compact --preview changed the session file")
	}
}

// TestHandoffContinuesInANewSession: /handoff writes one record into the
// old session and opens a new one with a boundary (naming the old one) and
// the summary; the next -c continues there. When the summariser fails, the
// handoff still happens with a digest of the user's messages.
func TestHandoffContinuesInANewSession(t *testing.T) {
	t.Parallel()
	for _, failing := range []bool{false, true} {
		t.Run(fmt.Sprintf("summariser-fails=%v", failing), func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			if failing {
				agent := w.responder()
				w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
					if isSummaryRequest(r) {
						return llmtest.ServerError()
					}
					return agent(r)
				})
			}
			old := conversation(t, w)
			path := w.sessionPath(old)
			before := readBytes(t, path)

			r := w.MustRun("-c", "-p", "/handoff")
			if !strings.Contains(r.Stdout, "Handed off session") {
				t.Fatalf("/handoff printed:\n%s", r)
			}
			after := readBytes(t, path)
			if !bytes.HasPrefix(after, before) {
				t.Fatal("the old session's earlier lines changed")
			}
			added := records(t, path)[len(records(t, path))-1]
			if lines := bytes.Count(after[len(before):], []byte("\n")); lines != 1 || added.Subtype != storage.SubtypeHandoff || added.Handoff == nil {
				t.Fatalf("the old session got %d lines, the last %+v; want one handoff record", lines, added)
			}
			recs := records(t, w.sessionPath(added.Handoff.SessionID))
			if len(recs) != 2 || !recs[0].IsBoundary() || recs[0].Handoff == nil || recs[0].Handoff.SessionID != old || !recs[1].IsSummary() {
				t.Fatalf("the new session does not open with a boundary naming %s and a summary: %+v", old, recs)
			}
			sum := recs[1].Message.Content
			if !strings.Contains(sum, "the first request: make the parser strict") {
				t.Errorf("the handoff summary lost the user's words:\n%s", sum)
			}
			if failing != recs[1].CompactMetadata.Fallback {
				t.Errorf("fallback = %v with a failing summariser = %v", recs[1].CompactMetadata.Fallback, failing)
			}

			from := len(w.Server.Requests())
			obj := w.runJSON("-c", "-p", "go on")
			if obj.SessionID != added.Handoff.SessionID {
				t.Fatalf("-c continued %s, want the new session %s", obj.SessionID, added.Handoff.SessionID)
			}
			msgs := w.Server.Requests()[from].Messages
			// The summary, its acknowledgement, then the new message: two
			// user messages, so the model tells the summary from the user's words.
			if len(msgs) != 4 || msgs[1].Role != chat.RoleUser || !strings.Contains(msgs[1].Content, "handed off") ||
				msgs[2].Role != chat.RoleAssistant || msgs[3].Role != chat.RoleUser || !strings.HasPrefix(msgs[3].Content, "go on") {
				t.Fatalf("the first request of the new session: %+v", msgs)
			}
			if !bytes.Equal(readBytes(t, path), after) {
				t.Fatal("the old session received the new session's turn")
			}
			if failing {
				return
			}
			// Recall's session scope follows the handoff back to the old
			// session: the model's replies there are in no summary.
			from = len(w.Server.Requests())
			w.runJSON("-c", "-p", `recall "You said: request 3"`)
			if got := toolResultAfter(t, w.Server, from); !strings.Contains(got, "You said: request 3") || !strings.Contains(got, "assistant") {
				t.Fatalf("Recall in the new session did not reach the old one:\n%s", got)
			}
		})
	}
}
