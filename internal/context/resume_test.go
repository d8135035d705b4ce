package contextmgr

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/fileanalyzer"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// storeSession is a session file of the real store with the options of a
// small-window manager over it, and a way to resume it as -c does.
type storeSession struct {
	t    *testing.T
	sess *storage.Session
	opt  Options
	sum  *fakeLLM
}

func newStoreSession(t *testing.T, window int) *storeSession {
	t.Helper()
	proj, err := storage.NewStore(t.TempDir()).Project(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sess, err := proj.Create(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	s := &storeSession{t: t, sess: sess, sum: &fakeLLM{}}
	s.opt = Options{
		Model:      "test-model",
		Window:     window,
		System:     "You are a test assistant.",
		Tools:      []chat.ToolDef{{Name: "Read", Description: "read a file", Parameters: []byte(`{"type":"object","properties":{"file_path":{"type":"string"}}}`)}},
		LLM:        s.sum,
		Counter:    &byteCounter{},
		UpperBound: byteUpperBound,
		Estimate:   func(s string) int { return (len(s) + 3) / 4 },
		Files:      func(string, []chat.Message) ([]fileanalyzer.File, error) { return nil, nil },
	}
	return s
}

// open builds a manager over the session: from the file as LoadLive reads
// it (what -c does), or a new one.
func (s *storeSession) open(fromFile bool) *Manager {
	s.t.Helper()
	var live *storage.Live
	if fromFile {
		var err error
		if live, err = storage.LoadLive(context.Background(), s.sess.Path()); err != nil {
			s.t.Fatal(err)
		}
	}
	m, err := New(context.Background(), s.sess, live, s.opt)
	if err != nil {
		s.t.Fatal(err)
	}
	return m
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestResumeCutsWhatTheCompactionCut: a compaction whose retained part is
// too big for the window sends a kept tool result cut down; the file keeps
// it whole, and a resume from the file sends exactly the request the
// compacting process sends next, the cut included.
func TestResumeCutsWhatTheCompactionCut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStoreSession(t, 4000)
	m := s.open(false)
	// Enough history that the (capped) log reaches the trigger.
	for i := range 16 {
		must(t, m.AddUser(fmt.Sprintf("request %d: %s", i, strings.Repeat("q", 400))))
		must(t, m.AddAssistant(&llm.Response{Content: "answer " + strings.Repeat("a", 300)}))
	}
	// The last turn alone is far above what a compaction may keep.
	whole := strings.Repeat("line of a long log\n", 700)
	must(t, m.AddUser("read the log"))
	must(t, m.AddAssistant(&llm.Response{Content: "Reading.", ToolCalls: []chat.ToolCall{{ID: "log", Name: "Read", Arguments: `{"file_path":"x.log"}`}}}))
	must(t, m.AddToolResult("log", whole, ""))
	if _, err := m.Request(ctx); err != nil {
		t.Fatal(err)
	}
	if m.Compactions() != 1 {
		t.Fatalf("compactions = %d, want 1", m.Compactions())
	}
	must(t, m.AddAssistant(&llm.Response{Content: "The log is long."}))
	must(t, m.AddUser("what next?"))
	want, err := m.Request(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m.Compactions() != 1 {
		t.Fatalf("the next request compacted again (%d)", m.Compactions())
	}
	cut := false
	for _, msg := range want.Messages {
		if msg.ToolCallID == "log" {
			cut = strings.Contains(msg.Content, "lines) omitted ...]") && len(msg.Content) < len(whole)
		}
	}
	if !cut {
		t.Fatal("the compacting process does not send the kept result cut down; the test needs it to")
	}

	live, err := storage.LoadLive(ctx, s.sess.Path())
	if err != nil {
		t.Fatal(err)
	}
	if tr := live.Boundary.CompactMetadata.Truncated; len(tr) != 1 {
		t.Errorf("boundary truncated = %v, want the one kept result", tr)
	}
	for _, lr := range live.Records {
		if r := lr.Record; r.Type == storage.TypeToolResult && r.ToolResult.Output != whole {
			t.Error("the session file keeps the result cut; it must keep it whole")
		}
	}

	m2 := s.open(true)
	got, err := m2.Request(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m2.Compactions() != 0 {
		t.Fatal("the resumed manager compacted")
	}
	if !reflect.DeepEqual(got.Messages, want.Messages) {
		t.Errorf("resumed request differs from the one the compacting process sends:\n got %.600v\nwant %.600v", got.Messages, want.Messages)
	}
	if g, w := m2.Usage().Tokens, m.Usage().Tokens; g < w {
		t.Errorf("resumed usage %d tokens, below the compacting process's %d", g, w)
	}
}

// TestResumedSessionKeepsBackingOff: with a -c run per compaction and a
// summariser that always fails, the back-off carries over from run to run
// through the summary records, exactly as within one process.
func TestResumedSessionKeepsBackingOff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStoreSession(t, 4000)
	s.sum.answer = func(int, llm.Request) (*llm.Response, error) { return nil, errServer }
	compactInNewRun := func(i int, trigger string, wantFallback bool) {
		t.Helper()
		m := s.open(i > 0)
		for j := range 2 {
			must(t, m.AddUser(fmt.Sprintf("request %d.%d: %s", i, j, strings.Repeat("q", 400))))
			must(t, m.AddAssistant(&llm.Response{Content: "answer " + strings.Repeat("a", 300)}))
		}
		res, err := m.Compact(ctx, trigger, "")
		if err != nil {
			t.Fatal(err)
		}
		if res.Fallback != wantFallback {
			t.Fatalf("run %d: fallback %v, want %v", i, res.Fallback, wantFallback)
		}
	}
	var calls []int
	for i := range 7 {
		compactInNewRun(i, storage.TriggerAuto, true)
		calls = append(calls, s.sum.calls())
	}
	// Two failures, three runs that skip the model, a try that fails,
	// then the pause doubles.
	if want := []int{1, 2, 2, 2, 2, 3, 3}; !reflect.DeepEqual(calls, want) {
		t.Fatalf("summariser calls after each run's compaction %v, want %v", calls, want)
	}
	live, err := storage.LoadLive(ctx, s.sess.Path())
	if err != nil {
		t.Fatal(err)
	}
	if meta := live.Summary.CompactMetadata; meta.Failures != 3 || meta.SkipsLeft != 5 {
		t.Errorf("last summary record failures %d, skipsLeft %d; want 3 and 5", meta.Failures, meta.SkipsLeft)
	}
	// A manual /compact in a resumed run still asks; its success ends the
	// back-off for the runs after it.
	s.sum.answer = nil
	compactInNewRun(7, storage.TriggerManual, false)
	if s.sum.calls() != 4 {
		t.Fatalf("manual compact: %d calls, want 4", s.sum.calls())
	}
	compactInNewRun(8, storage.TriggerAuto, false)
	if s.sum.calls() != 5 {
		t.Fatalf("%d calls after the success, want 5: the next run asks again", s.sum.calls())
	}
}

// TestResumeAfterGuardCut: the overflow guard cuts a result down in memory,
// outside any compaction, and says so in a context_cut record. A resume
// sends the result whole, so the server's count of the cut request is only
// a floor under its own count.
func TestResumeAfterGuardCut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStoreSession(t, 8000)
	m := s.open(false)
	whole := strings.Repeat("line of a long log\n", 200)
	must(t, m.AddUser("read the log"))
	must(t, m.AddAssistant(&llm.Response{Content: "Reading.", ToolCalls: []chat.ToolCall{{ID: "log", Name: "Read", Arguments: `{"file_path":"x.log"}`}}}))
	must(t, m.AddToolResult("log", whole, ""))
	if _, err := m.Request(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := m.RecoverOverflowFrom(ctx, 1, errors.New("maximum context length is 2000 tokens")); err != nil || !ok {
		t.Fatalf("RecoverOverflowFrom = %v, %v", ok, err)
	}
	if _, err := m.Request(ctx); err != nil {
		t.Fatal(err)
	}
	must(t, m.AddAssistant(&llm.Response{Content: "The log is long.", Usage: llm.Usage{PromptTokens: 300}}))
	must(t, m.AddUser("what next?"))

	live, err := storage.LoadLive(ctx, s.sess.Path())
	if err != nil {
		t.Fatal(err)
	}
	var cuts []map[string]int
	for _, lr := range live.Records {
		if r := lr.Record; r.Type == storage.TypeSystem && r.Subtype == storage.SubtypeContextCut {
			cuts = append(cuts, r.CompactMetadata.Truncated)
		}
	}
	if len(cuts) != 1 || len(cuts[0]) != 1 {
		t.Fatalf("context_cut records %v, want one naming the cut result", cuts)
	}

	m2 := s.open(true)
	if !m2.acct.calib.ok || !m2.acct.calib.floor {
		t.Errorf("resumed calibration %+v, want the server's count of the cut request as a floor", m2.acct.calib)
	}
	if n := m2.acct.requestTokens(bound); n < len(whole) {
		t.Errorf("resumed size %d, below the whole result it sends (%d bytes)", n, len(whole))
	}
}

// TestResumeCalibration: the last reply's prompt_tokens replaces the local
// count on resume as it does live, unless the live context was changed in
// place after it (as the process that did it forgot it too), and it is
// only a floor when another model's tokenizer made it.
func TestResumeCalibration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		replyModel string
		lowerAfter bool
		lowerFirst bool
		wantOK     bool
		wantFloor  bool
	}{
		{"same model", "test-model", false, false, true, false},
		{"dated snapshot", "test-model-2024-08-06", false, false, true, false},
		{"provider prefix", "openai/test-model", false, false, true, false},
		{"server's own name, same tokenizer", "/models/local.gguf", false, false, true, false},
		{"a model of another tokenizer", "gpt-4-0613", false, false, true, true},
		{"window lowered after it", "test-model", true, false, true, false},
		{"window lowered before it", "test-model", false, true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newStoreSession(t, 100_000)
			m := s.open(false)
			must(t, m.AddUser(strings.Repeat("q", 4000)))
			if _, err := m.Request(context.Background()); err != nil {
				t.Fatal(err)
			}
			if tc.lowerFirst {
				m.guard.effective = 50_000
				must(t, m.guard.record(m.log, &m.opt))
			}
			must(t, m.AddAssistant(&llm.Response{Model: tc.replyModel, Content: "ok", Usage: llm.Usage{PromptTokens: 1000}}))
			if tc.lowerAfter {
				m.guard.effective = 50_000
				must(t, m.guard.record(m.log, &m.opt))
			}
			must(t, m.AddUser("next"))
			m2 := s.open(true)
			c := m2.acct.calib
			if c.ok != tc.wantOK || (c.ok && c.floor != tc.wantFloor) {
				t.Fatalf("calibration %+v, want ok %v floor %v", c, tc.wantOK, tc.wantFloor)
			}
			if !c.ok {
				return
			}
			want := 1000
			for _, e := range m2.live.entries()[c.upto:] {
				want += e.best()
			}
			n := m2.acct.requestTokens(bound)
			switch {
			case !tc.wantFloor && n != want:
				t.Errorf("resumed size %d, want the server's count and what came after: %d", n, want)
			case tc.wantFloor && n < max(want, 4000):
				t.Errorf("resumed size %d, below the local bound", n)
			}
		})
	}
}

// TestSteadyContinuedTurnsDoNotTokenize: -c -p turns, one process each,
// in a session whose byte bound is far past the trigger while the server
// counts it well below: the last reply's prompt_tokens plus the bound of
// the new message answers every turn, and nothing is tokenized.
func TestSteadyContinuedTurnsDoNotTokenize(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStoreSession(t, 10_000) // trigger 8000
	counter := s.opt.Counter.(*byteCounter)
	prompt := strings.Repeat("words of a long prompt ", 130) // ~3 KB, ~750 tokens
	for turn := range 6 {
		m := s.open(turn > 0)
		must(t, m.AddUser(prompt))
		if _, err := m.Request(ctx); err != nil {
			t.Fatal(err)
		}
		must(t, m.AddAssistant(&llm.Response{Content: "noted", Usage: llm.Usage{PromptTokens: 800 * (turn + 1)}}))
		if turn == 5 && boundOf(m.live.entries()) < m.guard.trigger() {
			t.Fatalf("the session's byte bound %d is under the trigger %d; the test needs it over", boundOf(m.live.entries()), m.guard.trigger())
		}
		if m.Compactions() != 0 {
			t.Fatalf("turn %d compacted", turn)
		}
	}
	if n := counter.calls.Load(); n != 0 {
		t.Errorf("the turns tokenized %d times", n)
	}
}
