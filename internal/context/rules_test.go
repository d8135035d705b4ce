package contextmgr

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/toolcall"
)

// The tests of this file hold each rule the manager owns to its one
// owner; each names the disagreement it guards against.

// TestTruncationMarkerIsChats: a text cut down to fit the window carries
// chat.OmissionMarker, the marker tools' capped output carries too (there
// used to be two wordings the model saw for one thing).
func TestTruncationMarkerIsChats(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("line of text\n", 1000)
	got := truncateText(s, 1000)
	if len(got) > 1000 {
		t.Errorf("cut to %d bytes, want at most 1000", len(got))
	}
	i := strings.Index(got, "[... ")
	if i < 0 {
		t.Fatalf("no marker in %q", got)
	}
	head, rest, _ := strings.Cut(got, "\n[... ")
	marker, tail, _ := strings.Cut("[... "+rest, "\n")
	cut := s[len(head) : len(s)-len(tail)]
	if want := chat.OmissionMarker(len(cut), strings.Count(cut, "\n")); marker != want {
		t.Errorf("marker %q, want %q", marker, want)
	}
}

// TestUsageAddsUp: /context's parts sum to its total, the messages of an
// exchange are never shown as 0 tokens, adding a message never makes the
// total go down, and the server's count is told apart from the estimate.
// (After one exchange it used to show "messages 0 tokens", the parts
// exceeding the total, and the total dropped once the server had counted.)
func TestUsageAddsUp(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 100000, nil)
	check := func(what string, u Usage) {
		t.Helper()
		if sum := u.System + u.Pins + u.Tools + u.MCPTools + u.Summary + u.Messages; sum != u.Tokens {
			t.Errorf("%s: parts %d+%d+%d+%d = %d, total %d", what, u.System, u.Tools, u.Summary, u.Messages, sum, u.Tokens)
		}
		if u.System < 0 || u.Tools < 0 || u.Messages < 0 {
			t.Errorf("%s: a negative part: %+v", what, u)
		}
	}
	f.user("hello there, " + strings.Repeat("word ", 50))
	before := f.m.Usage()
	check("before the exchange", before)
	if before.Measured != 0 {
		t.Errorf("Measured %d before the server counted anything", before.Measured)
	}
	f.request()
	// The server counts fewer tokens than the local estimate (another
	// tokenizer): the parts are scaled to its figure.
	if err := f.m.AddAssistant(&llm.Response{Content: "hi", Usage: llm.Usage{PromptTokens: before.Tokens / 3, CompletionTokens: 2}}); err != nil {
		t.Fatal(err)
	}
	after := f.m.Usage()
	check("after one exchange", after)
	if after.Messages <= 0 {
		t.Errorf("after one exchange the messages weigh %d tokens", after.Messages)
	}
	if after.Measured != before.Tokens/3 || !after.Scaled {
		t.Errorf("after one exchange: measured %d (want %d), scaled %v", after.Measured, before.Tokens/3, after.Scaled)
	}
	f.user("and another message")
	more := f.m.Usage()
	check("after a message was added", more)
	if more.Tokens <= after.Tokens {
		t.Errorf("adding a message took the total from %d to %d", after.Tokens, more.Tokens)
	}
}

// TestUsageWarningUsesTheClampedTrigger: the REPL's "context left until
// auto-compact" hint is measured against the trigger the manager applies,
// reply reserve included (the REPL used to compute threshold × window on
// its own, with its own 0.8).
func TestUsageWarningUsesTheClampedTrigger(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 16000, func(o *Options) { o.Threshold = 0.95 })
	u := f.m.Usage()
	if u.Trigger != 14000 { // min(0.95 × 16000, 16000 − 16000/8)
		t.Fatalf("trigger %d, want 14000", u.Trigger)
	}
	u.Tokens = 11500 // past WarnShare of the real trigger, not of 0.95 × 16000
	msg, ok := u.Warning()
	if !ok || msg != "context left until auto-compact: 18%" {
		t.Errorf("Warning() = %q, %v", msg, ok)
	}
	u.Tokens = 11000
	if _, ok := u.Warning(); ok {
		t.Error("warned below WarnShare of the trigger")
	}
}

// TestModelSwitchChangesWindow: /model changes the tokenizer and, when the
// window came from the models table, the window with it (it used to change
// only the tokenizer); an explicit window stays.
func TestModelSwitchChangesWindow(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 0, func(o *Options) { o.Model = "gpt-4o" })
	if u := f.m.Usage(); u.Window != 128000 || u.Encoding != "o200k_base" {
		t.Fatalf("gpt-4o: window %d, encoding %s", u.Window, u.Encoding)
	}
	f.m.SetModel("gpt-4")
	if u := f.m.Usage(); u.Window != 8192 || u.Encoding != "cl100k_base" || u.Model != "gpt-4" {
		t.Errorf("after /model gpt-4: window %d, encoding %s, model %s", u.Window, u.Encoding, u.Model)
	}
	g := newFixture(t, 50000, func(o *Options) { o.Model = "gpt-4o"; o.WindowExplicit = true })
	g.m.SetModel("gpt-4")
	if u := g.m.Usage(); u.Window != 50000 || u.Encoding != "cl100k_base" {
		t.Errorf("explicit window after /model gpt-4: window %d, encoding %s", u.Window, u.Encoding)
	}
}

// TestWindowTooSmall: a window the system prompt and tools alone fill is
// refused, naming the smallest usable one.
func TestWindowTooSmall(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 100000, nil)
	min := f.m.acct.minWindow(&f.m.guard)
	_, err := New(context.Background(), &memLog{}, nil, withWindow(f.opt, 1))
	var small *WindowTooSmallError
	if !errors.As(err, &small) || small.Min != min || small.Fixed <= 0 || small.Fixed >= min {
		t.Fatalf("New with window 1: %v (%+v), want the minimum %d", err, small, min)
	}
	if _, err := New(context.Background(), &memLog{}, nil, withWindow(f.opt, min)); err != nil {
		t.Errorf("New with the minimum window %d: %v", min, err)
	}
}

func withWindow(o Options, w int) Options {
	o.Window = w
	return o
}

// learnAndResume teaches a fixture's session window w and resumes it with
// opt changed by tweak, at now.
func learnAndResume(t *testing.T, tweak func(*Options)) (*fixture, *Manager) {
	t.Helper()
	f := newFixture(t, 100000, nil)
	for i := range 3 {
		f.turn(i)
	}
	if ok, err := f.m.RecoverOverflowFrom(context.Background(), 1, statedOverflow(20000)); !ok || err != nil {
		t.Fatalf("recover: %v %v", ok, err)
	}
	opt := f.opt
	opt.Now = func() time.Time { return time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC) } // memLog writes 2026-01-01
	if tweak != nil {
		tweak(&opt)
	}
	m, err := New(context.Background(), f.log, f.log.live(t, false), opt)
	if err != nil {
		t.Fatal(err)
	}
	return f, m
}

// TestLearntWindowRules (issue 13 item 5): a learnt window holds on
// resume, but an explicit window wins over it, it expires, and a reset
// is kept.
func TestLearntWindowRules(t *testing.T) {
	t.Parallel()
	if _, m := learnAndResume(t, nil); m.Usage().Window != 20000 {
		t.Errorf("resumed: window %d, want the learnt 20000", m.Usage().Window)
	}
	if _, m := learnAndResume(t, func(o *Options) { o.WindowExplicit = true }); m.Usage().Window != 100000 {
		t.Errorf("resumed with an explicit window: %d, want the explicit 100000", m.Usage().Window)
	}
	later := func(o *Options) {
		o.Now = func() time.Time { return time.Date(2026, 1, 2, 1, 0, 0, 0, time.UTC) } // memLog writes 2026-01-01
	}
	if _, m := learnAndResume(t, later); m.Usage().Window != 100000 {
		t.Errorf("resumed 25 hours later: window %d, want the configured 100000", m.Usage().Window)
	}

	f, m := learnAndResume(t, nil)
	if err := m.ResetWindow(); err != nil {
		t.Fatal(err)
	}
	f.opt.Now = func() time.Time { return time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC) }
	if m.Usage().Window != 100000 {
		t.Errorf("after the reset: window %d", m.Usage().Window)
	}
	again, err := New(context.Background(), f.log, f.log.live(t, false), f.opt)
	if err != nil {
		t.Fatal(err)
	}
	if again.Usage().Window != 100000 || again.Usage().Learnt != 0 {
		t.Errorf("resumed after the reset: window %d, learnt %d", again.Usage().Window, again.Usage().Learnt)
	}
}

// TestWindowFloorIsWhatTheServerAccepted (issue 13 item 5): a window
// stated below what the server already answered is not believed: the
// first such rejection teaches nothing (the request goes again as it is);
// a second one is estimated from, never below what the server accepted.
func TestWindowFloorIsWhatTheServerAccepted(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 100000, nil)
	f.user("hello")
	f.request()
	if err := f.m.AddAssistant(&llm.Response{Content: "hi", Usage: llm.Usage{PromptTokens: 5000}}); err != nil {
		t.Fatal(err)
	}
	f.user("again")
	more, err := f.m.RecoverOverflowFrom(context.Background(), 1, statedOverflow(50))
	if err != nil || !more {
		t.Fatalf("first rejection stating 50: more %v, %v; want the request sent again", more, err)
	}
	if u := f.m.Usage(); u.Window != 100000 || u.Learnt != 0 {
		t.Errorf("after one rejection stating 50 tokens: window %d, learnt %d; want 100000 and nothing learnt", u.Window, u.Learnt)
	}
	if _, err := f.m.RecoverOverflowFrom(context.Background(), 2, statedOverflow(50)); err != nil {
		t.Fatal(err)
	}
	if w := f.m.Usage().Window; w != 5000 {
		t.Errorf("window %d after a server that answered 5000 tokens stated 50, want 5000", w)
	}
	for _, r := range f.log.records(t) {
		if r.Subtype == storage.SubtypeContextWindow && r.ContextWindow < 5000 {
			t.Errorf("recorded a %d-token window", r.ContextWindow)
		}
	}
	if !hasNotice(f.notices, NoticeWarning) {
		t.Error("the user was not told the statement was not believed")
	}
}

// TestLearntWindowIsForgottenWhenTheServerAcceptsMore (issue 13 item 5):
// a server that answers a request larger than the window its rejection
// taught has a larger window: the learnt one is forgotten, in the session
// file too, so a resume does not bring it back.
func TestLearntWindowIsForgottenWhenTheServerAcceptsMore(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 100000, nil)
	for i := range 3 {
		f.turn(i)
	}
	if _, err := f.m.RecoverOverflowFrom(context.Background(), 1, statedOverflow(20000)); err != nil {
		t.Fatal(err)
	}
	if u := f.m.Usage(); u.Learnt != 20000 {
		t.Fatalf("learnt %d, want the stated 20000", u.Learnt)
	}
	// A request within the learnt window proves nothing.
	f.request()
	if err := f.m.AddAssistant(&llm.Response{Content: "ok", Usage: llm.Usage{PromptTokens: 15000}}); err != nil {
		t.Fatal(err)
	}
	if u := f.m.Usage(); u.Learnt != 20000 {
		t.Fatalf("after an answered request of 15000 tokens: learnt %d, want 20000 still", u.Learnt)
	}
	f.user("more")
	f.request()
	if err := f.m.AddAssistant(&llm.Response{Content: "ok", Usage: llm.Usage{PromptTokens: 25000}}); err != nil {
		t.Fatal(err)
	}
	if u := f.m.Usage(); u.Learnt != 0 || u.Window != 100000 {
		t.Errorf("after an answered request of 25000 tokens: learnt %d, window %d; want nothing learnt, 100000", u.Learnt, u.Window)
	}
	if !hasNotice(f.notices, NoticeWarning) {
		t.Error("the user was not told the learnt window was forgotten")
	}
	again, err := New(context.Background(), f.log, f.log.live(t, false), f.opt)
	if err != nil {
		t.Fatal(err)
	}
	if u := again.Usage(); u.Learnt != 0 || u.Window != 100000 {
		t.Errorf("resumed: learnt %d, window %d; want nothing learnt, 100000", u.Learnt, u.Window)
	}
}

// TestMemoryStoreHoldsTheLiveContext: the live context is the
// MemoryStore's; at its bound a big result is cut down in memory (the
// file keeps it whole, a context_cut records it) and nothing is dropped.
func TestMemoryStoreHoldsTheLiveContext(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 100000, func(o *Options) { o.MaxLiveBytes = 64 << 10 })
	f.turn(0)
	if n := len(f.m.live.mem.Records()); n != len(f.m.live.entries()) || n != 5 {
		t.Fatalf("the MemoryStore holds %d records, the manager %d", n, len(f.m.live.entries()))
	}
	f.user("read the big one")
	big := strings.Repeat("B", 100<<10)
	f.toolTurn("big", "Read", `{"file_path":"big.txt"}`, big+"END")
	if b := f.m.live.mem.Bytes(); b > 64<<10 {
		t.Errorf("the MemoryStore holds %d bytes, over its bound", b)
	}
	if len(f.m.live.entries()) != 9 || len(f.m.live.mem.Records()) != 9 {
		t.Errorf("%d records in force, %d in the MemoryStore, want all 9", len(f.m.live.entries()), len(f.m.live.mem.Records()))
	}
	last := f.request().Messages
	if m := last[len(last)-1]; m.Role != chat.RoleTool || !strings.HasSuffix(m.Content, "END") || !strings.Contains(m.Content, "omitted ...]") {
		t.Errorf("the big result is sent as %.80q…, want it cut with the marker and its end", m.Content)
	}
	cut := false
	for _, r := range f.log.records(t) {
		if r.Type == storage.TypeToolResult && r.ToolResult.ID == "big" && r.ToolResult.Output != big+"END" {
			t.Error("the file lost the whole result")
		}
		cut = cut || r.Subtype == storage.SubtypeContextCut
	}
	if !cut || !hasNotice(f.notices, NoticeTruncated) {
		t.Errorf("cut recorded %v, user told %v", cut, hasNotice(f.notices, NoticeTruncated))
	}
}

// TestSummaryPartsAreCached: a long summary is written in parts; when the
// compaction is interrupted at the merge, the next attempt finds the
// parts' notes in the CacheStore instead of asking for them again.
func TestSummaryPartsAreCached(t *testing.T) {
	t.Parallel()
	cache := storage.NewCacheStore(100, time.Hour)
	f := newFixture(t, 4000, func(o *Options) { o.Cache = cache })
	for i := range 20 {
		f.turn(i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	parts := 0
	f.llm.answer = func(n int, req llm.Request) (*llm.Response, error) {
		if req.Messages[0].Content == partInstructions {
			parts++
			return &llm.Response{Content: "notes on a part"}, nil
		}
		if ctx.Err() == nil {
			cancel()
			return nil, ctx.Err()
		}
		return &llm.Response{Content: "the merged summary"}, nil
	}
	if _, err := f.m.Compact(ctx, storage.TriggerManual, ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted compaction: %v", err)
	}
	first := parts
	if first < 2 {
		t.Fatalf("%d part calls: the material should need several", first)
	}
	res, err := f.m.Compact(context.Background(), storage.TriggerManual, "")
	if err != nil || res.Fallback {
		t.Fatalf("retry: %v %+v", err, res)
	}
	if parts != first {
		t.Errorf("the retry asked for %d parts again", parts-first)
	}
}

// TestLearntWindowIsCachedForTheProcess: a window a server taught one
// session holds for the next session of the same process (/new), through
// the CacheStore, unless the window was given explicitly.
func TestLearntWindowIsCachedForTheProcess(t *testing.T) {
	t.Parallel()
	cache := storage.NewCacheStore(100, time.Hour)
	f := newFixture(t, 100000, func(o *Options) { o.Cache = cache })
	for i := range 3 {
		f.turn(i)
	}
	if _, err := f.m.RecoverOverflowFrom(context.Background(), 1, statedOverflow(20000)); err != nil {
		t.Fatal(err)
	}
	unwritten := &memLog{failErr: errors.New("no session file yet")}
	next, err := New(context.Background(), unwritten, nil, f.opt)
	if err != nil {
		t.Fatal(err)
	}
	if w := next.Usage().Window; w != 20000 {
		t.Errorf("the next session's window %d, want the learnt 20000", w)
	}
	// Its file holds nothing to undo: the reset writes nothing.
	if err := next.ResetWindow(); err != nil || next.Usage().Window != 100000 {
		t.Errorf("reset in a session not yet written: %v, window %d", err, next.Usage().Window)
	}
	if _, ok := cache.Get(windowCacheKey(f.opt.Model)); ok {
		t.Error("the reset left the window in the CacheStore")
	}
	if err := f.m.ResetWindow(); err != nil {
		t.Fatal(err)
	}
	explicit := f.opt
	explicit.WindowExplicit = true
	m, err := New(context.Background(), &memLog{}, nil, explicit)
	if err != nil {
		t.Fatal(err)
	}
	if w := m.Usage().Window; w != 100000 {
		t.Errorf("with an explicit window the next session has %d, want 100000", w)
	}
}

// TestNoticeKinds: the front ends route notices by kind, not by string.
func TestNoticeKinds(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		kind                NoticeKind
		warning, compaction bool
	}{
		{NoticeCompacting, false, true},
		{NoticeCompacted, false, true},
		{NoticeFallback, true, true},
		{NoticeTruncated, true, false},
		{NoticeRetry, true, false},
		{NoticeWarning, true, false},
	} {
		if tt.kind.IsWarning() != tt.warning || tt.kind.IsCompaction() != tt.compaction {
			t.Errorf("%s: IsWarning %v, IsCompaction %v", tt.kind, tt.kind.IsWarning(), tt.kind.IsCompaction())
		}
	}
}

// TestCutTextNamesTheRecallThatReadsItWhole: a stored text cut to fit the
// window says, after the marker, the Recall call that reads it whole (the
// wording is the Recall tool's, toolcall.RecallWhole), within the limit.
func TestCutTextNamesTheRecallThatReadsItWhole(t *testing.T) {
	t.Parallel()
	r := &storage.Record{UUID: "6f1c2d3e-0000-4000-8000-00000000abcd", Type: storage.TypeToolResult,
		ToolResult: &storage.ToolResult{ID: "c", Output: strings.Repeat("line of output\n", 4000)}}
	for _, limit := range []int{32 << 10, 1000, 256} {
		cut, ok := cutRecord(r, limit)
		if !ok {
			t.Fatalf("limit %d: not cut", limit)
		}
		got := cut.ToolResult.Output
		if len(got) > limit || !strings.Contains(got, "omitted ...] "+toolcall.RecallWhole(r.UUID, "")+"\n") {
			t.Errorf("limit %d: %d bytes: %q", limit, len(got), got)
		}
	}
}
