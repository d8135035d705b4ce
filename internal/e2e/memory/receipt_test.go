package memory

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestReceiptNamesWhatTheSummaryDropped: against a summariser that
// forgets everything, the boundary's receipt lists the paths and commands
// the compaction took out, all of them as not in the summary; /compact
// prints it, /context shows it, and the summary message names them as
// recallable.
func TestReceiptNamesWhatTheSummaryDropped(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	// The model names the path and the command on its own: what the user
	// wrote is kept word for word by every summary.
	agent := w.responder()
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		if last := r.Messages[len(r.Messages)-1]; last.Role == chat.RoleUser && !isSummaryRequest(r) {
			// A resumed run's first message carries the re-orientation
			// packet after the user's words.
			words, _, _ := strings.Cut(last.Content, "\n\nRe-orientation (read from")
			switch words {
			case "look at the notes":
				return llmtest.ToolCalls(llmtest.Call("Read", `{"file_path":"design-notes.md"}`))
			case "run the migrations":
				return llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"printf 'ran-%s' migrations"}`))
			}
		}
		return agent(r)
	})
	w.writeFile("design-notes.md", "# notes\nthe cache key is the tuple (model, text)\n")
	id := w.runJSON("-p", "look at the notes").SessionID
	w.runJSON("-c", "-p", "run the migrations", "--dangerously-skip-permissions")
	for i := range 5 {
		w.runJSON("-c", "-p", fmt.Sprintf("filler %d", i))
	}
	r := w.MustRun("-c", "-p", "/compact")
	for _, want := range []string{"Receipt:", "design-notes.md", "printf 'ran-%s' migrations", "not in the summary, recallable"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("/compact does not print %q:\n%s", want, r.Stdout)
		}
	}
	var found bool
	for _, rec := range records(t, w.sessionPath(id)) {
		if rec.IsBoundary() {
			rc := rec.CompactMetadata.Receipt
			if rc == nil {
				t.Fatal("the boundary has no receipt")
			}
			found = true
			if !slices.Contains(rc.Paths, "design-notes.md") || !slices.Contains(rc.NotInSummary.Paths, "design-notes.md") {
				t.Errorf("receipt paths %q, not in summary %q", rc.Paths, rc.NotInSummary.Paths)
			}
			cmd := "printf 'ran-%s' migrations"
			if !slices.Contains(rc.Commands, cmd) || !slices.Contains(rc.NotInSummary.Commands, cmd) {
				t.Errorf("receipt commands %q, not in summary %q", rc.Commands, rc.NotInSummary.Commands)
			}
			if rc.Messages < 4 || rc.Tokens <= 0 || rc.First == "" || rc.Last == "" {
				t.Errorf("receipt %+v", rc)
			}
		}
		if rec.IsSummary() {
			c := rec.Message.Content
			if !strings.Contains(c, "Recall") || !strings.Contains(c, "design-notes.md") || !strings.Contains(c, "printf 'ran-%s' migrations") {
				t.Errorf("the summary message does not point at Recall and the dropped items:\n%s", c)
			}
		}
	}
	if !found {
		t.Fatal("no boundary in the session file")
	}
	r = w.MustRun("-c", "-p", "/context")
	if !strings.Contains(r.Stdout, "Last compaction:") || !strings.Contains(r.Stdout, "design-notes.md") {
		t.Fatalf("/context does not show the last receipt:\n%s", r.Stdout)
	}
}

// TestPinSurvivesCompactionsUntilUnpinned: a pin is sent word for word in
// the request after each of three compactions, /context counts it, /pins
// lists it, and after /unpin and the next compaction it is gone.
func TestPinSurvivesCompactionsUntilUnpinned(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const pin = "PIN-42: indent with tabs, never spaces; the API base is /v2 (not /v1)."
	w.runJSON("-p", "hello")
	if r := w.MustRun("-c", "-p", "/pin "+pin); !strings.Contains(r.Stdout, "Pinned") {
		t.Fatalf("/pin printed:\n%s", r)
	}
	systemOfNextTurn := func(i int) string {
		t.Helper()
		from := len(w.Server.Requests())
		w.runJSON("-c", "-p", fmt.Sprintf("turn %d", i))
		for _, q := range w.Server.Requests()[from:] {
			if !isSummaryRequest(q) && q.Messages[0].Role == chat.RoleSystem {
				return q.Messages[0].Content
			}
		}
		t.Fatal("no agent request")
		return ""
	}
	for i := range 3 {
		w.runJSON("-c", "-p", fmt.Sprintf("filler %d", i))
		if r := w.Run("-c", "-p", "/compact"); r.Code != 0 || !strings.Contains(r.Stdout, "Compacted") {
			t.Fatalf("compaction %d:\n%s", i+1, r)
		}
		if sys := systemOfNextTurn(i); !strings.Contains(sys, pin) {
			t.Fatalf("after compaction %d the request does not carry the pin verbatim:\n%s", i+1, sys)
		}
	}
	if r := w.MustRun("-c", "-p", "/pins"); !strings.Contains(r.Stdout, "1. "+pin) {
		t.Fatalf("/pins:\n%s", r.Stdout)
	}
	if r := w.MustRun("-c", "-p", "/context"); !strings.Contains(r.Stdout, "pins") {
		t.Fatalf("/context does not count the pins:\n%s", r.Stdout)
	}
	w.MustRun("-c", "-p", "/unpin 1")
	w.runJSON("-c", "-p", "filler after unpin")
	w.MustRun("-c", "-p", "/compact")
	if sys := systemOfNextTurn(9); strings.Contains(sys, pin) || strings.Contains(sys, "PIN-42") {
		t.Fatalf("the pin is still sent after /unpin and a compaction:\n%s", sys)
	}
}
