package contextmgr

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// turn adds one user turn of about 380 tokens: a request, a tool call with
// its result, and a final reply.
func (f *fixture) turn(i int) {
	f.t.Helper()
	f.user(fmt.Sprintf("request %d: %s", i, strings.Repeat("q", 400)))
	f.toolTurn(fmt.Sprintf("call-%d", i), "Read", fmt.Sprintf(`{"file_path":"f%d.go"}`, i), strings.Repeat("r", 800))
	f.reply(fmt.Sprintf("answer %d: %s", i, strings.Repeat("a", 200)))
}

func summaries(recs []*storage.Record) []*storage.Record {
	var out []*storage.Record
	for _, r := range recs {
		if r.IsSummary() {
			out = append(out, r)
		}
	}
	return out
}

func TestAutoCompactionFiresBeforeTheRequestThatWouldCross(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 4000, nil)
	trigger := f.m.guard.trigger()
	if trigger != 3200 {
		t.Fatalf("trigger = %d, want 3200 (80%% of 4000)", trigger)
	}
	var before int
	for i := 0; f.m.Compactions() == 0; i++ {
		if i > 20 {
			t.Fatal("no compaction after 20 turns")
		}
		f.turn(i)
		before = f.m.acct.requestTokens(exact)
		req := f.request()
		if n := requestSize(f.counter, req); n >= trigger {
			t.Fatalf("turn %d: request of %d tokens handed out, trigger %d", i, n, trigger)
		}
		checkWellFormed(t, req.Messages)
	}
	if before < trigger {
		t.Fatalf("compacted at %d tokens, below the trigger %d", before, trigger)
	}

	recs := f.log.records(t)
	var bi int
	for i, r := range recs {
		if r.IsBoundary() {
			bi = i
		}
	}
	b, s := recs[bi], recs[bi+1]
	if !b.IsBoundary() || !s.IsSummary() || bi+2 != len(recs) {
		t.Fatalf("want boundary then summary at the end, got %s/%s at %d of %d", b.Type, s.Type, bi, len(recs))
	}
	// The ladder may have cleared old tool results first (the request
	// was at the trigger then); the summary comes when that was not enough.
	cleared := len(b.CompactMetadata.Receipt.Ladder) > 1
	if b.CompactMetadata.Trigger != storage.TriggerAuto || (b.CompactMetadata.PreTokens < trigger && !cleared) || b.Message.Content != "Conversation compacted" {
		t.Errorf("boundary metadata %+v", b.CompactMetadata)
	}
	if s.CompactMetadata.PostTokens >= trigger || s.CompactMetadata.PostTokens <= 0 || s.CompactMetadata.Fallback {
		t.Errorf("summary metadata %+v", s.CompactMetadata)
	}
	if !strings.HasPrefix(s.Message.Content, summaryPreamble) || !strings.Contains(s.Message.Content, "SUMMARY-") {
		t.Errorf("summary content %q", s.Message.Content)
	}

	// The retained part starts at a user record and keeps whole turns.
	var retained *storage.Record
	for _, lr := range f.log.recs {
		if lr.Offset == b.CompactMetadata.RetainedOffset {
			retained = lr.Record
		}
	}
	if retained == nil || retained.UUID != b.CompactMetadata.RetainedUUID || retained.Type != storage.TypeUser {
		t.Fatalf("retained offset %d does not start a user record (%+v)", b.CompactMetadata.RetainedOffset, retained)
	}

	// The summarizer was asked with the current model, no tools, a bound.
	asked := ""
	for _, sreq := range f.llm.reqs {
		if sreq.Model != "test-model" || len(sreq.Tools) != 0 || sreq.MaxCompletionTokens != 500 {
			t.Errorf("summary request model=%q tools=%d max=%d", sreq.Model, len(sreq.Tools), sreq.MaxCompletionTokens)
		}
		asked += sreq.Messages[1].Content
	}
	if !strings.Contains(asked, "request 0: ") {
		t.Error("the summarizer was not given the oldest user request")
	}

	// The next request: system, summary, its acknowledgement, the first
	// retained user turn and the rest of the retained tail, nothing
	// orphaned.
	req := f.request()
	checkWellFormed(t, req.Messages)
	if req.Messages[0].Role != chat.RoleSystem || req.Messages[1].Role != chat.RoleUser ||
		!strings.HasPrefix(req.Messages[1].Content, summaryPreamble) ||
		req.Messages[2].Content != summaryAck.Content || req.Messages[3].Content != retained.Message.Content {
		t.Errorf("request after compaction starts %+v", req.Messages[:4])
	}
	if strings.Contains(fmt.Sprint(req.Messages), "request 0: ") {
		t.Error("a dropped turn is still sent")
	}
	if got := f.m.Usage(); got.Summary == 0 || got.Tokens >= trigger {
		t.Errorf("usage after compaction %+v", got)
	}
}

// TestHugeToolResultCompactsBeforeTheCall: a result larger than the
// window is sent cut down (head, marker, tail) — by the context ladder's
// cap on a new result, or a compaction — and never over the trigger.
func TestHugeToolResultCompactsBeforeTheCall(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 4000, nil)
	for i := range 3 {
		f.turn(i)
	}
	f.request()
	if f.m.Compactions() != 0 {
		t.Fatal("compacted too early")
	}
	f.user("read the big log")
	huge := "HEAD" + strings.Repeat("x", 20000) + "TAIL"
	f.toolTurn("big", "Read", `{"file_path":"big.log"}`, huge) // ~5000 tokens: 120% of the window
	req := f.request()
	if f.m.Compactions() > 1 {
		t.Fatalf("compactions = %d, want at most 1", f.m.Compactions())
	}
	if n := requestSize(f.counter, req); n >= f.m.guard.trigger() {
		t.Fatalf("request after the huge result %d tokens, trigger %d", n, f.m.guard.trigger())
	}
	checkWellFormed(t, req.Messages)
	last := req.Messages[len(req.Messages)-1]
	if last.Role != chat.RoleTool || last.ToolCallID != "big" || !strings.HasPrefix(last.Content, "HEAD") ||
		!strings.HasSuffix(last.Content, "TAIL") || !strings.Contains(last.Content, "lines) omitted ...]") {
		t.Errorf("the big result is not kept as head + marker + tail: %.80q…", last.Content)
	}
	var onDisk string
	for _, r := range f.log.records(t) {
		if r.Type == storage.TypeToolResult && r.ToolResult.ID == "big" {
			onDisk = r.ToolResult.Output
		}
	}
	if onDisk != huge {
		t.Error("the session file lost the full tool result")
	}

	// A resumed session cuts it down again: it is too big for the window.
	req2, err := f.resume(true).Request(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := requestSize(f.counter, req2); n >= f.m.guard.trigger() {
		t.Fatalf("resumed request %d tokens, trigger %d", n, f.m.guard.trigger())
	}
}

func TestResumeRestoresTheSameRequest(t *testing.T) {
	t.Parallel()
	for _, markers := range []bool{true, false} {
		t.Run(fmt.Sprintf("markers=%v", markers), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, 4000, nil)
			for i := 0; f.m.Compactions() < 2; i++ {
				f.turn(i)
				f.request()
			}
			f.turn(100)
			f.user("and one more thing")
			want := f.request()
			m2 := f.resume(markers)
			got, err := m2.Request(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if m2.Compactions() != 0 {
				t.Fatal("the resumed manager compacted")
			}
			if !reflect.DeepEqual(got.Messages, want.Messages) {
				t.Errorf("resumed request differs:\n got %v\nwant %v", got.Messages, want.Messages)
			}
			if m2.Spend().Session != f.m.Spend().Session {
				t.Errorf("session usage %+v, want %+v", m2.Spend().Session, f.m.Spend().Session)
			}
		})
	}
}

func TestSummaryFailureFallsBack(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		answer func(int, llm.Request) (*llm.Response, error)
		errSub string
	}{
		{"server error", func(int, llm.Request) (*llm.Response, error) { return nil, errServer }, "500"},
		{"empty answer", func(int, llm.Request) (*llm.Response, error) { return &llm.Response{Content: "  "}, nil }, "empty"},
		{"not smaller", func(int, llm.Request) (*llm.Response, error) {
			return &llm.Response{Content: strings.Repeat("long ", 3000)}, nil
		}, "not smaller"},
		{"timeout", func(_ int, _ llm.Request) (*llm.Response, error) { return nil, context.DeadlineExceeded }, "deadline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// A window that takes the material in one call.
			good := newFixture(t, 8000, nil)
			f := newFixture(t, 8000, nil)
			f.llm.answer = tt.answer
			for i := range 8 {
				good.turn(i)
				f.turn(i)
			}
			gres, err := good.m.Compact(context.Background(), storage.TriggerAuto, "")
			if err != nil {
				t.Fatal(err)
			}
			res, err := f.m.Compact(context.Background(), storage.TriggerAuto, "")
			if err != nil {
				t.Fatal(err)
			}
			if !res.Fallback || !strings.Contains(res.Err, tt.errSub) {
				t.Fatalf("result %+v, want a fallback mentioning %q", res, tt.errSub)
			}
			s := summaries(f.log.records(t))[0]
			if !s.CompactMetadata.Fallback || !strings.Contains(s.CompactMetadata.Error, tt.errSub) ||
				!strings.HasPrefix(s.Message.Content, fallbackPreamble) || !strings.Contains(s.Message.Content, "request 0: ") {
				t.Errorf("fallback summary record %+v %q", s.CompactMetadata, s.Message.Content)
			}
			if len(f.m.live.entries()) <= len(good.m.live.entries()) {
				t.Errorf("fallback kept %d records, the summary path %d: want more", len(f.m.live.entries()), len(good.m.live.entries()))
			}
			if res.PostTokens >= f.m.guard.trigger() || gres.PostTokens >= good.m.guard.trigger() {
				t.Errorf("post tokens %d / %d, trigger %d", res.PostTokens, gres.PostTokens, f.m.guard.trigger())
			}
			if !hasNotice(f.notices, "fallback") {
				t.Error("the user was not told")
			}
			checkWellFormed(t, f.request().Messages)
		})
	}
}

func hasNotice(ns []Notice, kind NoticeKind) bool {
	for _, n := range ns {
		if n.Kind == kind {
			return true
		}
	}
	return false
}

func TestRepeatedSummaryFailuresBackOff(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 4000, nil)
	f.llm.answer = func(int, llm.Request) (*llm.Response, error) { return nil, errServer }
	compact := func(trigger string) *CompactResult {
		t.Helper()
		f.turn(0)
		f.turn(1)
		res, err := f.m.Compact(context.Background(), trigger, "")
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	var calls []int
	for range 6 {
		compact(storage.TriggerAuto)
		calls = append(calls, f.llm.calls())
	}
	// Two failures, then three compactions without asking, then a try.
	if want := []int{1, 2, 2, 2, 2, 3}; !reflect.DeepEqual(calls, want) {
		t.Fatalf("summarizer calls after each compaction %v, want %v", calls, want)
	}
	// The next failure doubles the pause; a manual /compact still asks.
	compact(storage.TriggerAuto)
	if f.llm.calls() != 3 {
		t.Fatalf("calls = %d, want 3 (paused)", f.llm.calls())
	}
	if res := compact(storage.TriggerManual); f.llm.calls() != 4 || !res.Fallback {
		t.Fatalf("manual compact: calls = %d, fallback %v", f.llm.calls(), res.Fallback)
	}
	// A success ends the pause.
	f.llm.answer = nil
	if res := compact(storage.TriggerManual); res.Fallback {
		t.Fatal("manual compact fell back with a working summarizer")
	}
	compact(storage.TriggerAuto)
	if f.llm.calls() != 6 {
		t.Fatalf("calls = %d, want 6 after the success", f.llm.calls())
	}
}

func TestHistoryLargerThanTheWindowIsSummarisedInParts(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1_000_000, nil)
	for i := range 60 {
		f.turn(i) // ~23k tokens in all
	}
	f.opt.Window = 6000
	m := f.resume(true)
	req, err := m.Request(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if m.Compactions() != 1 {
		t.Fatalf("compactions = %d", m.Compactions())
	}
	if f.llm.calls() < 3 {
		t.Fatalf("summarizer calls = %d, want parts and a merge", f.llm.calls())
	}
	for i, r := range f.llm.reqs {
		if n := requestSize(f.counter, r) + r.MaxCompletionTokens; n > 6000 {
			t.Errorf("summary call %d needs %d tokens, window 6000", i, n)
		}
	}
	merge := f.llm.last()
	if !strings.Contains(merge.Messages[1].Content, "Notes on part 1 of") {
		t.Error("the last call does not merge the parts")
	}
	if n := requestSize(f.counter, req); n >= m.guard.trigger() {
		t.Fatalf("request %d tokens, trigger %d", n, m.guard.trigger())
	}
	checkWellFormed(t, req.Messages)
}

func TestCompactInstructionsAndFilesReachTheSummarizer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f := newFixture(t, 100000, func(o *Options) {
		o.Root = dir
		o.Files = testFiles
	})
	writeFile(t, dir, "parser.go", "package parser\n\nfunc Parse() {}\n")
	writeFile(t, dir, "notes.md", "# notes\nremember the edge case\n")
	f.user("fix the parser")
	f.toolTurn("w1", "Edit", `{"file_path":"parser.go","old_string":"a","new_string":"b"}`, "ok")
	f.toolTurn("r1", "Read", `{"file_path":"notes.md"}`, "# notes"+strings.Repeat(" and more", 300))
	f.reply("done")
	f.user("thanks")
	f.reply("you're welcome")

	res, err := f.m.Compact(context.Background(), storage.TriggerManual, "focus on the parser API")
	if err != nil {
		t.Fatal(err)
	}
	body := requestText(f.llm.last())
	for _, want := range []string{"focus on the parser API", "### parser.go", "func Parse() {}", "### notes.md", "remember the edge case", "fix the parser"} {
		if !strings.Contains(body, want) {
			t.Errorf("summary request lacks %q", want)
		}
	}
	if !reflect.DeepEqual(res.Files, []string{"parser.go", "notes.md"}) {
		t.Errorf("files %v", res.Files)
	}
	s := summaries(f.log.records(t))[0]
	if !reflect.DeepEqual(s.CompactMetadata.FilesIncluded, res.Files) || s.CompactMetadata.Trigger != storage.TriggerManual {
		t.Errorf("summary metadata %+v", s.CompactMetadata)
	}
}

func TestNothingToCompact(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 4000, nil)
	if _, err := f.m.Compact(context.Background(), storage.TriggerManual, ""); !errors.Is(err, ErrNothingToCompact) {
		t.Fatalf("empty session: err = %v", err)
	}
	f.user("hello")
	if _, err := f.m.Compact(context.Background(), storage.TriggerManual, ""); !errors.Is(err, ErrNothingToCompact) {
		t.Fatalf("one message: err = %v", err)
	}
	if len(f.log.recs) != 1 {
		t.Errorf("records written: %d", len(f.log.recs))
	}
}

func TestCancelledSummaryWritesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 4000, nil)
	for i := range 4 {
		f.turn(i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.llm.answer = func(int, llm.Request) (*llm.Response, error) { cancel(); return nil, context.Canceled }
	n := len(f.log.recs)
	if _, err := f.m.Compact(ctx, storage.TriggerManual, ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if len(f.log.recs) != n {
		t.Error("a cancelled compaction wrote records")
	}
}

func TestRecoverOverflowStages(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 10000, nil)
	for i := range 3 {
		f.turn(i)
	}
	f.user("look at the log")
	full := strings.Repeat("L", 12000)
	f.toolTurn("log", "Read", `{"file_path":"x.log"}`, full) // 3000 tokens
	sent := f.request()
	sentTokens := requestSize(f.counter, sent)

	ok, err := f.m.RecoverOverflowFrom(context.Background(), 1, nil)
	if !ok || err != nil {
		t.Fatalf("attempt 1: %v %v", ok, err)
	}
	if f.m.guard.effective >= 10000 || f.m.guard.effective > sentTokens {
		t.Errorf("effective window %d after a rejected %d-token request", f.m.guard.effective, sentTokens)
	}
	if f.m.Compactions() != 0 {
		t.Error("attempt 1 compacted")
	}
	req := f.request()
	if n := requestSize(f.counter, req); n >= sentTokens {
		t.Errorf("retry is %d tokens, the rejected one %d", n, sentTokens)
	}
	for _, m := range req.Messages {
		if m.ToolCallID == "log" && len(m.Content) >= len(full) {
			t.Error("the oversized result was not cut")
		}
	}
	for _, r := range f.log.records(t) {
		if r.Type == storage.TypeToolResult && r.ToolResult.ID == "log" && r.ToolResult.Output != full {
			t.Error("the file lost the full result")
		}
	}

	before := f.m.Compactions()
	ok, err = f.m.RecoverOverflowFrom(context.Background(), 2, nil)
	if !ok || err != nil {
		t.Fatalf("attempt 2: %v %v", ok, err)
	}
	if f.m.Compactions() != before+1 {
		t.Error("attempt 2 did not compact")
	}
	checkWellFormed(t, f.request().Messages)

	// Each further attempt lowers the window again until the floor, and
	// the guard gives up within MaxOverflowAttempts.
	for attempt := 3; ; attempt++ {
		if attempt > MaxOverflowAttempts+1 {
			t.Fatalf("still recovering after %d attempts", attempt-1)
		}
		ok, err := f.m.RecoverOverflowFrom(context.Background(), attempt, nil)
		if err != nil {
			t.Fatal(err)
		}
		if f.m.guard.effective < minLearntWindow {
			t.Fatalf("attempt %d: window %d below the floor %d", attempt, f.m.guard.effective, minLearntWindow)
		}
		if !ok {
			break
		}
		checkWellFormed(t, f.request().Messages)
	}
}

func TestSmallContextNeverTokenizes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 128000, nil)
	for i := range 10 {
		f.turn(i)
		f.request()
		f.m.Usage().Warning()
	}
	if n := f.counter.calls.Load(); n != 0 {
		t.Fatalf("the counter was called %d times for a small context", n)
	}
	for _, r := range f.log.records(t) {
		if r.Tokens != 0 {
			t.Fatal("a token count was recorded without counting")
		}
	}
}

func TestServerCountCalibrates(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 4000, nil)
	f.user("hi")
	f.request()
	// The server says the request was much bigger than we think (another
	// tokenizer): trust it.
	if err := f.m.AddAssistant(&llm.Response{Content: "hello", Usage: llm.Usage{PromptTokens: 3000, CompletionTokens: 2}}); err != nil {
		t.Fatal(err)
	}
	f.user(strings.Repeat("z", 800))
	calls := f.counter.calls.Load()
	n := f.m.acct.requestTokens(exact)
	if n < 3000 || n > 3300 {
		t.Errorf("calibrated count %d, want 3000 + the new messages", n)
	}
	if got := f.counter.calls.Load() - calls; got > 2 {
		t.Errorf("counted %d parts, want only the 2 after the calibration", got)
	}
	f.user(strings.Repeat("y", 800))
	f.request()
	if f.m.Compactions() != 1 {
		t.Error("the calibrated count did not trigger compaction")
	}

	// A resumed session calibrates from the last reply's usage.
	g := newFixture(t, 4000, nil)
	g.user("hi")
	if err := g.m.AddAssistant(&llm.Response{Content: "hello", Usage: llm.Usage{PromptTokens: 3300}}); err != nil {
		t.Fatal(err)
	}
	g.user("and?")
	m := g.resume(true)
	if n := m.acct.requestTokens(bound); n < 3300 {
		t.Errorf("resumed count %d ignores the recorded usage", n)
	}
}

func TestNewRepairsUnansweredCalls(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 4000, nil)
	f.user("run both")
	if err := f.m.AddAssistant(&llm.Response{ToolCalls: []chat.ToolCall{{ID: "c1", Name: "Bash", Arguments: `{}`}, {ID: "c2", Name: "Bash", Arguments: `{}`}}}); err != nil {
		t.Fatal(err)
	}
	if err := f.m.AddToolResult("c1", "ok", ""); err != nil {
		t.Fatal(err)
	}
	m := f.resume(true)
	recs := f.log.records(t)
	last := recs[len(recs)-1]
	if last.Type != storage.TypeToolResult || last.ToolResult.ID != "c2" || last.ToolResult.Error != interruptedText {
		t.Fatalf("last record %+v %+v", last, last.ToolResult)
	}
	req, err := m.Request(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkWellFormed(t, req.Messages)
	// A second resume has nothing left to repair.
	n := len(f.log.recs)
	f.resume(true)
	if len(f.log.recs) != n {
		t.Error("repaired twice")
	}
}

func TestSessionUsageSpansCompactions(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 4000, nil)
	add := func(in, out int) {
		f.user(strings.Repeat("u", 1200))
		if err := f.m.AddAssistant(&llm.Response{Content: strings.Repeat("a", 400), Usage: llm.Usage{PromptTokens: in, CompletionTokens: out}}); err != nil {
			t.Fatal(err)
		}
	}
	add(100, 10)
	add(200, 20)
	add(300, 30)
	if _, err := f.m.Compact(context.Background(), storage.TriggerManual, ""); err != nil {
		t.Fatal(err)
	}
	add(50, 5)
	want := storage.Usage{InputTokens: 650, OutputTokens: 65}
	if got := f.m.Spend().Session; got != want {
		t.Errorf("SessionUsage = %+v, want %+v", got, want)
	}
	if got := f.resume(true).Spend().Session; got != want {
		t.Errorf("resumed SessionUsage = %+v, want %+v", got, want)
	}
}

func TestLogFailureIsReported(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 4000, nil)
	f.log.failErr = errors.New("disk full")
	if err := f.m.AddUser("x"); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v", err)
	}
	if len(f.m.live.entries()) != 0 {
		t.Error("an unpersisted record joined the live context")
	}
}

func TestSetModelRecounts(t *testing.T) {
	t.Parallel()
	var built []string
	f := newFixture(t, 4000, func(o *Options) {
		o.NewCounter = func(model string) TokenCounter { built = append(built, model); return &byteCounter{} }
	})
	for i := range 6 {
		f.turn(i)
	}
	f.m.acct.requestTokens(exact)
	f.m.SetModel("other")
	if f.m.opt.Model != "other" || !reflect.DeepEqual(built, []string{"other"}) || f.m.live.entries()[0].exact != -1 {
		t.Errorf("model %q, counters built %v", f.m.opt.Model, built)
	}
	if req := f.request(); req.Model != "other" {
		t.Errorf("request model %q", req.Model)
	}
}

func TestCountsAreSharedThroughTheCache(t *testing.T) {
	t.Parallel()
	cache := storage.NewCacheStore(1000, time.Hour)
	f := newFixture(t, 4000, func(o *Options) { o.Cache = cache })
	for i := range 4 {
		f.turn(i)
	}
	first := f.m.acct.requestTokens(exact)
	f.counter.calls.Store(0)
	// A second manager over the same records (a /switch back, say) finds
	// every count in the cache; the system prompt and tools are its own.
	m := f.resume(true)
	if got := m.acct.requestTokens(exact); got != first {
		t.Errorf("count %d, want %d", got, first)
	}
	if n := f.counter.calls.Load(); n > 3 {
		t.Errorf("counter called %d times, want only system, tools and the stand-in", n)
	}
}

func TestTypedNilCacheAndCounterAreAbsent(t *testing.T) {
	t.Parallel()
	var cache *storage.CacheStore
	f := newFixture(t, 4000, func(o *Options) { o.Cache = cache })
	f.turn(0)
	f.m.acct.requestTokens(exact) // would panic on a nil *CacheStore
}

// TestRecordsCountedOnlyNearTheTrigger: a record is tokenized as it is
// appended only when the request could reach the trigger with it (then
// Request would count it anyway, and its count is stored with it — a user
// message included); below that the server's next count covers it.
func TestRecordsCountedOnlyNearTheTrigger(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 4000, nil) // trigger 3200
	f.user("hello")
	f.request()
	if err := f.m.AddAssistant(&llm.Response{Content: "hi", Usage: llm.Usage{PromptTokens: 50}}); err != nil {
		t.Fatal(err)
	}
	calls := f.counter.calls.Load()
	f.toolTurn("c1", "Read", `{"file_path":"a.go"}`, strings.Repeat("a", 1500))
	if n := f.counter.calls.Load() - calls; n != 0 {
		t.Fatalf("records far below the trigger were tokenized %d times", n)
	}
	f.user(strings.Repeat("b", 2000)) // the bound with it passes the trigger
	recs := f.log.records(t)
	for _, r := range recs[:len(recs)-1] {
		if r.Tokens != 0 {
			t.Errorf("%s record stored %d tokens without being near the trigger", r.Type, r.Tokens)
		}
	}
	last := recs[len(recs)-1]
	if want := f.counter.Message(recordMessage(last)); last.Tokens != want {
		t.Errorf("user record near the trigger stored %d tokens, want %d", last.Tokens, want)
	}
	if n := f.m.acct.requestTokens(exact); n >= f.m.guard.trigger() {
		t.Fatalf("the test needs the exact request (%d) under the trigger (%d)", n, f.m.guard.trigger())
	}
}

// TestCompactionTokenizesNoDroppedRecord: choosing what to keep and sizing
// the summary material use the records' known counts and the fast
// estimate, and the server's count answers the size before; so a
// compaction tokenizes only the summary and the fixed parts, however long
// the history it drops.
func TestCompactionTokenizesNoDroppedRecord(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 100_000, nil)
	for i := range 40 {
		f.user(fmt.Sprintf("step %d", i))
		f.toolTurn(fmt.Sprintf("c%d", i), "Read", `{"file_path":"a.go"}`, strings.Repeat("func x() {}\n", 200+i*10))
		f.reply("done")
	}
	// The server measured the request, as it does every turn.
	f.request()
	if err := f.m.AddAssistant(&llm.Response{Content: "ok", Usage: llm.Usage{PromptTokens: 30_000}}); err != nil {
		t.Fatal(err)
	}
	calls := f.counter.calls.Load()
	res, err := f.m.Compact(context.Background(), storage.TriggerManual, "")
	if err != nil || res.Fallback {
		t.Fatalf("Compact = %+v, %v", res, err)
	}
	if n := f.counter.calls.Load() - calls; n > 10 {
		t.Errorf("the compaction tokenized %d times for 160 records", n)
	}
	if res.PostTokens <= 0 || res.PostTokens >= res.PreTokens {
		t.Errorf("pre %d, post %d tokens: want 0 < post < pre", res.PreTokens, res.PostTokens)
	}
	if len(f.m.live.entries()) < 3 || len(f.m.live.entries()) > 40 {
		t.Errorf("kept %d of 160 records, want about a fifth", len(f.m.live.entries()))
	}
}

// A runaway answer the user stopped after megabytes keeps its head only,
// with the omission marker, not megabytes in the context.
func TestIncompleteAnswerIsBounded(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("la la la\n", 400000) // 3.6 MB
	got := incompleteContent(huge, true, "")
	if len(got) > incompleteKeepBytes+200 || !strings.Contains(got, "omitted") || !strings.Contains(got, "interrupted") {
		t.Fatalf("kept %d bytes of a %d-byte answer; tail %q", len(got), len(huge), got[len(got)-120:])
	}
	if small := incompleteContent("short answer", true, ""); !strings.HasPrefix(small, "short answer") {
		t.Fatalf("a short answer was changed: %q", small)
	}
}
