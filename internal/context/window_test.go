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

// statedOverflow is a rejection that states the server's window.
func statedOverflow(window int) error {
	return &llm.Error{Kind: llm.KindOverflow, StatusCode: 400,
		Message: fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens.", window, window+500)}
}

// storeTurn adds one user turn with a tool round and a final reply.
func storeTurn(t *testing.T, m *Manager, i int) {
	t.Helper()
	must(t, m.AddUser(fmt.Sprintf("request %d: %s", i, strings.Repeat("q", 400))))
	must(t, m.AddAssistant(&llm.Response{Content: "Let me look.", ToolCalls: []chat.ToolCall{{ID: fmt.Sprint("c", i), Name: "Read", Arguments: `{"file_path":"a.go"}`}}}))
	must(t, m.AddToolResult(fmt.Sprint("c", i), strings.Repeat("r", 800), ""))
	must(t, m.AddAssistant(&llm.Response{Content: fmt.Sprintf("answer %d: %s", i, strings.Repeat("a", 200))}))
}

func windowRecords(recs []*storage.Record) []int {
	var ws []int
	for _, r := range recs {
		if r.Type == storage.TypeSystem && r.Subtype == storage.SubtypeContextWindow {
			ws = append(ws, r.ContextWindow)
		}
	}
	return ws
}

func fileRecords(t *testing.T, path string) []*storage.Record {
	t.Helper()
	var out []*storage.Record
	err := storage.ReadAll(context.Background(), path, func(_ int64, r *storage.Record) error {
		out = append(out, r)
		return nil
	}, func(msg string) { t.Errorf("session file warning: %s", msg) })
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLearntWindowSurvivesResume: a window learnt from a rejection is in
// force again after -c — from its context_window record while no
// compaction came after it, and from the boundary's effectiveWindow once
// one did — so a resumed run does not send what the server refused.
func TestLearntWindowSurvivesResume(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStoreSession(t, 100000)

	m := s.open(false)
	for i := range 2 {
		storeTurn(t, m, i)
	}
	if ok, err := m.RecoverOverflowFrom(ctx, 1, statedOverflow(9000)); !ok || err != nil {
		t.Fatalf("recover: %v %v", ok, err)
	}
	recs := fileRecords(t, s.sess.Path())
	if got := windowRecords(recs); !reflect.DeepEqual(got, []int{9000}) {
		t.Fatalf("context_window records %v, want [9000]", got)
	}
	// The record is no message: the request is what it was without it.
	var without []*storage.Record
	for _, r := range recs {
		if r.Subtype != storage.SubtypeContextWindow {
			without = append(without, r)
		}
	}
	if !reflect.DeepEqual(messagesOf(recs), messagesOf(without)) {
		t.Fatal("the context_window record changed the messages")
	}

	m = s.open(true)
	if w := m.Usage().Window; w != 9000 {
		t.Fatalf("resumed window %d, want the learnt 9000", w)
	}
	req, err := m.Request(ctx)
	must(t, err)
	checkWellFormed(t, req.Messages)

	// A second rejection in the resumed run lowers it further; a
	// compaction then carries it on its boundary, past the records that
	// said so (they are no longer in the live context).
	if ok, err := m.RecoverOverflowFrom(ctx, 1, statedOverflow(7000)); !ok || err != nil {
		t.Fatalf("recover: %v %v", ok, err)
	}
	for i := 2; i < 8; i++ {
		storeTurn(t, m, i)
	}
	if _, err := m.Compact(ctx, storage.TriggerManual, ""); err != nil {
		t.Fatal(err)
	}
	live, err := storage.LoadLive(ctx, s.sess.Path())
	must(t, err)
	if got := live.Boundary.CompactMetadata.EffectiveWindow; got != 7000 {
		t.Fatalf("boundary effectiveWindow %d, want 7000", got)
	}
	var liveRecs []*storage.Record
	for _, lr := range live.Records {
		liveRecs = append(liveRecs, lr.Record)
	}
	if got := windowRecords(liveRecs); len(got) != 0 {
		t.Fatalf("context_window records %v still in the live context; the test needs the boundary to carry them", got)
	}
	m = s.open(true)
	if w := m.Usage().Window; w != 7000 {
		t.Fatalf("window after a resume past the boundary %d, want 7000", w)
	}

	// A run configured with a smaller window than the one learnt keeps
	// its own, and its compactions still carry the learnt one for the
	// runs configured larger after it.
	s.opt.Window = 5000
	m = s.open(true)
	if w := m.Usage().Window; w != 5000 {
		t.Fatalf("window %d with a configured 5000, want 5000", w)
	}
	for i := 8; i < 14; i++ {
		storeTurn(t, m, i)
	}
	if _, err := m.Compact(ctx, storage.TriggerManual, ""); err != nil {
		t.Fatal(err)
	}
	s.opt.Window = 100000
	if w := s.open(true).Usage().Window; w != 7000 {
		t.Fatalf("window %d after a compaction in a run configured smaller, want the learnt 7000", w)
	}
}

// TestUnlearntWindowIsNotRecorded: without a rejection nothing is written
// and a boundary carries no window.
func TestUnlearntWindowIsNotRecorded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStoreSession(t, 8000)
	m := s.open(false)
	for i := range 6 {
		storeTurn(t, m, i)
	}
	if _, err := m.Compact(ctx, storage.TriggerManual, ""); err != nil {
		t.Fatal(err)
	}
	recs := fileRecords(t, s.sess.Path())
	if got := windowRecords(recs); len(got) != 0 {
		t.Fatalf("context_window records %v, want none", got)
	}
	for _, r := range recs {
		if r.IsBoundary() && r.CompactMetadata.EffectiveWindow != 0 {
			t.Fatalf("boundary effectiveWindow %d, want none", r.CompactMetadata.EffectiveWindow)
		}
	}
	if w := s.open(true).Usage().Window; w != 8000 {
		t.Fatalf("resumed window %d, want the configured 8000", w)
	}
}
