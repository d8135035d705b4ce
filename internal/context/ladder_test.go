package contextmgr

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// readTurn adds a reply reading path and its result.
func readTurn(t *testing.T, m *Manager, id, path, output string) {
	t.Helper()
	must(t, m.AddAssistant(&llm.Response{ToolCalls: []chat.ToolCall{{ID: id, Name: "Read", Arguments: fmt.Sprintf(`{"file_path":%q}`, path)}}}))
	must(t, m.AddToolResult(id, output, ""))
}

// stubs are the tool messages of msgs sent as a cleared result's stub.
func stubs(msgs []chat.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == chat.RoleTool && strings.HasPrefix(m.Content, "[") && strings.Contains(m.Content, "; Recall ref=") {
			out = append(out, m.Content)
		}
	}
	return out
}

func countRecords(recs []*storage.Record, subtype string) int {
	n := 0
	for _, r := range recs {
		if r.Type == storage.TypeSystem && r.Subtype == subtype {
			n++
		}
	}
	return n
}

// TestLadderClearsBeforeItSummarises: reads that fill the window are
// cleared to stubs (oldest first, the last reply's kept), recorded in a
// context_clear record, and no summary is asked for; the request is well
// under the trigger again, in one batch.
func TestLadderClearsBeforeItSummarises(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStoreSession(t, 8000)
	m := s.open(false)
	must(t, m.AddUser("read the files"))
	var req llm.Request
	for i := 0; len(stubs(req.Messages)) == 0; i++ {
		if i == 20 {
			t.Fatal("nothing was cleared after 20 large reads")
		}
		readTurn(t, m, fmt.Sprint("c", i), fmt.Sprintf("f%d.go", i), strings.Repeat(fmt.Sprintf("line %d of a file\n", i), 80))
		var err error
		if req, err = m.Request(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if s.sum.calls() != 0 || m.Compactions() != 0 {
		t.Errorf("%d summary calls, %d compactions: clearing must come first", s.sum.calls(), m.Compactions())
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role != chat.RoleTool || len(stubs([]chat.Message{last})) != 0 {
		t.Errorf("the last reply's result was cleared: %.200s", last.Content)
	}
	recs := fileRecords(t, s.sess.Path())
	if countRecords(recs, storage.SubtypeContextClear) != 1 {
		t.Errorf("want one context_clear record, have %d", countRecords(recs, storage.SubtypeContextClear))
	}
	if n, trig := m.acct.requestTokens(exact), m.guard.trigger(); n > trig*3/4 {
		t.Errorf("after clearing the request is %d tokens, trigger %d: clearing must go well below it", n, trig)
	}
	if u := m.Usage(); u.Cleared == 0 || len(u.Ladder) != 1 || u.Ladder[0].Freed <= 0 {
		t.Errorf("Usage shows %d cleared, ladder %+v", u.Cleared, u.Ladder)
	}
}

// TestResumeRebuildsTheClearedRequest: a resume from the file sends the
// very messages the clearing process sends next (stubs included).
func TestResumeRebuildsTheClearedRequest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStoreSession(t, 8000)
	m := s.open(false)
	must(t, m.AddUser("read the files"))
	for i := range 24 {
		readTurn(t, m, fmt.Sprint("c", i), fmt.Sprintf("f%d.go", i), strings.Repeat(fmt.Sprintf("line %d of a file\n", i), 80))
		if _, err := m.Request(ctx); err != nil {
			t.Fatal(err)
		}
	}
	must(t, m.AddAssistant(&llm.Response{Content: "Read them all."}))
	must(t, m.AddUser("what next?"))
	want, err := m.Request(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(stubs(want.Messages)) == 0 {
		t.Fatal("nothing cleared; the test needs it")
	}
	m2 := s.open(true)
	got, err := m2.Request(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Messages, want.Messages) {
		t.Errorf("the resumed request differs:\n got %.800v\nwant %.800v", got.Messages, want.Messages)
	}
}

// TestLadderDropsSupersededReads: a file read, then edited, then read
// again: the first read is stale, and the superseded step clears it even
// among the recent results that the first step protects.
func TestLadderDropsSupersededReads(t *testing.T) {
	t.Parallel()
	s := newStoreSession(t, 8000)
	m := s.open(false)
	must(t, m.AddUser("fix main.go"))
	big := strings.Repeat("func main() { println(\"hello\") }\n", 60)
	readTurn(t, m, "r1", "main.go", big)
	must(t, m.AddAssistant(&llm.Response{ToolCalls: []chat.ToolCall{{ID: "e1", Name: "Edit", Arguments: `{"file_path":"main.go","old_string":"a","new_string":"b"}`}}}))
	must(t, m.AddToolResult("e1", "edited", ""))
	readTurn(t, m, "r2", "main.go", big)
	es := m.live.entries()
	plan := planSuperseded(m.acct, es)
	if len(plan) != 1 || plan[0].rec.ToolResult.ID != "r1" {
		t.Fatalf("superseded plan = %v, want the first read", plan)
	}
	clearEntry(m.acct, es, plan[0], storage.ClearStepSuperseded)
	msg := recordMessage(plan[0].sent())
	if !strings.HasPrefix(msg.Content, "[superseded by a later read or edit: Read main.go, ") || !strings.Contains(msg.Content, "Recall ref="+plan[0].rec.UUID[:8]) {
		t.Errorf("stub = %q", msg.Content)
	}
}

// TestLadderSkipsAStepThatFreesTooLittle: results too small to be worth
// a stub are not cleared — the prefix is not broken for nothing — and the
// summary is taken instead.
func TestLadderSkipsAStepThatFreesTooLittle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStoreSession(t, 4000)
	m := s.open(false)
	for i := range 40 {
		must(t, m.AddUser(fmt.Sprintf("question %d: %s", i, strings.Repeat("why ", 40))))
		readTurn(t, m, fmt.Sprint("c", i), "x.go", "ok")
		must(t, m.AddAssistant(&llm.Response{Content: strings.Repeat("because ", 30)}))
		if _, err := m.Request(ctx); err != nil {
			t.Fatal(err)
		}
		if m.Compactions() > 0 {
			break
		}
	}
	if m.Compactions() == 0 {
		t.Fatal("never summarised")
	}
	if n := countRecords(fileRecords(t, s.sess.Path()), storage.SubtypeContextClear); n != 0 {
		t.Errorf("%d context_clear records for results of two bytes", n)
	}
}

// TestResumeKeepsWhereTheLadderGaveUp: a context_give_up record makes a
// resume wait from its request size, as the process that wrote it waits;
// a context_window record after it (a window a rejection taught) voids it.
func TestResumeKeepsWhereTheLadderGaveUp(t *testing.T) {
	t.Parallel()
	s := newStoreSession(t, 8000)
	m := s.open(false)
	must(t, m.AddUser("hi"))
	must(t, recordGiveUp(m.log, 7090, 7000))
	if got := s.open(true).ladder.stuck; got != 7090 {
		t.Errorf("after a give-up, a resume waits from %d tokens, want 7090", got)
	}
	if _, err := s.sess.Append(&storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeContextWindow, ContextWindow: 6000}); err != nil {
		t.Fatal(err)
	}
	if got := s.open(true).ladder.stuck; got != 0 {
		t.Errorf("a window learnt after the give-up leaves the resume waiting from %d tokens", got)
	}
}
