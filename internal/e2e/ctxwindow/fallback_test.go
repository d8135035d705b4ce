package ctxwindow

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// quickServerError is a 500 that asks for a 20 ms wait, so the client's
// retries cost no real backoff.
func quickServerError(llmtest.Request) llmtest.Reply {
	r := llmtest.ServerError()
	r.Header = http.Header{"Retry-After-Ms": {"20"}}
	return r
}

// fallbackSession runs small turns (medium reads, so the cut can fall
// close to 30%) in a window where the summariser always answers 500, until
// a run compacts. It returns the last run's result and the world.
func fallbackSession(t *testing.T, format string, window int) (*world, result) {
	t.Helper()
	w := newWorld(t, llmtest.Options{Window: window})
	w.Server.SetResponder(agentWithSummaries(quickServerError))
	for i := range 100 {
		name := "part" + itoa(i) + ".txt"
		w.writeFile(name, bigText("part"+itoa(i), 30))
		// With words of the user's own: the context ladder clears and folds
		// old tool results, and drops earlier resumes' packets, before it
		// summarises; only what it cannot clear brings the summary on.
		args := []string{"-p", "read " + name + "\n" + bigText("ask"+itoa(i), 8), "--context-window", itoa(window), "--output-format", format}
		if i > 0 {
			args = append([]string{"-c"}, args...)
		}
		r := w.Run(args...)
		if r.Code != 0 {
			t.Fatalf("turn %d: the run must still answer when the summary fails\n%s", i, r)
		}
		if len(summaryRequests(w.Server)) > 0 {
			return w, r
		}
	}
	t.Fatal("no compaction after 100 turns")
	return nil, result{}
}

// TestSummaryFailureFallsBack: the summariser answering 500 (after the
// client's retries) ends in a fallback compaction — a summary record with
// fallback: true and the error, about 30% of the messages kept — and the
// run still answers. The window is large enough that the post-compaction
// ceiling (60% of the trigger, less system prompt, tools and summary
// budget) does not bind before the 30% does.
func TestSummaryFailureFallsBack(t *testing.T) {
	t.Parallel()
	const window = 16000
	w, r := fallbackSession(t, "json", window)
	var obj resultObject
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.Stdout)), &obj); err != nil {
		t.Fatalf("stdout is not one result object: %v\n%s", err, r)
	}
	if obj.IsError || !strings.HasPrefix(obj.Result, "Tool results:") || obj.Compactions == nil || *obj.Compactions != 1 {
		t.Errorf("the compacting run's result: is_error %v, compactions %v, result %.80q; want an answer after one compaction", obj.IsError, obj.Compactions, obj.Result)
	}
	if n := len(summaryRequests(w.Server)); n < 2 {
		t.Errorf("the summary call was made %d times; a 500 is worth a retry", n)
	}
	for _, q := range w.Server.Requests() {
		if !isSummaryRequest(q) && q.Status != 200 {
			t.Errorf("an agent request was answered %d: %s", q.Status, q.Error)
		}
	}

	recs := readRecords(t, w.onlySession())
	cs := compactions(t, recs)
	if len(cs) != 1 {
		t.Fatalf("%d compactions in the file, want 1", len(cs))
	}
	c := cs[0]
	m := c.summary.CompactMetadata
	if !m.Fallback || m.Error == "" || m.Trigger != "auto" {
		t.Errorf("summary metadata %+v: want trigger auto, fallback true and the error", m)
	}
	if m.PostTokens <= 0 || m.PostTokens >= m.PreTokens {
		t.Errorf("preTokens %d, postTokens %d: want 0 < post < pre", m.PreTokens, m.PostTokens)
	}

	// How much of the conversation was kept, in tokens of message text as
	// the context held it: a result the ladder had cleared before the
	// summary was tried weighs its one-line stub, not its body.
	ri := retainedIndex(t, recs, c)
	cleared := map[string]string{}
	for _, rec := range recs[:c.index] {
		if rec.Subtype == "context_clear" && rec.CompactMetadata != nil {
			for id, step := range rec.CompactMetadata.Cleared {
				cleared[id] = step
			}
		}
	}
	kept, all := 0, 0
	for i, rec := range recs[:c.index] {
		n := recordTokens(rec)
		switch cleared[rec.UUID] {
		case "":
		case "collapse": // folded into an index line: sends nothing itself
			n = 0
		default:
			n = clearedStubTokens
		}
		all += n
		if i >= ri {
			kept += n
		}
	}
	frac := float64(kept) / float64(all)
	t.Logf("fallback kept %d of %d tokens of messages (%.0f%%)", kept, all, 100*frac)
	if frac < 0.2 || frac > 0.4 {
		t.Errorf("the fallback kept %.0f%% of the messages (%d of %d tokens), want about 30%%", 100*frac, kept, all)
	}
	if recs[ri].Type != "user" && recs[ri].Type != "assistant" {
		t.Errorf("the retained part starts with a %s record; a cut falls only before a user or assistant record", recs[ri].Type)
	}

	// The next turn goes on from the fallback context.
	n := len(w.Server.Requests())
	w.mustJSON("-c", "-p", "still there?", "--context-window", itoa(window))
	next := w.Server.Requests()[n]
	if next.Status != 200 || !strings.Contains(next.Messages[1].Content, "- read part") {
		t.Errorf("the request after the fallback (status %d) does not carry the digest of the user's earlier requests:\n%.400q", next.Status, next.Messages[1].Content)
	}
}

// TestSummaryFailureIsReported: the user is told about a fallback — a
// "compact" event in stream-json, and a line on stderr otherwise.
func TestSummaryFailureIsReported(t *testing.T) {
	t.Parallel()
	t.Run("stream-json", func(t *testing.T) {
		t.Parallel()
		_, r := fallbackSession(t, "stream-json", autoWindow)
		found := false
		sc := bufio.NewScanner(strings.NewReader(r.Stdout))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ev struct{ Type, Kind, Text string }
			if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "compact" && ev.Kind == "fallback" {
				found = true
			}
		}
		if !found {
			t.Errorf("no compact event of kind fallback in the stream\n%s", r)
		}
	})
	t.Run("stderr", func(t *testing.T) {
		t.Parallel()
		_, r := fallbackSession(t, "json", autoWindow)
		found := false
		for _, l := range strings.Split(r.Stderr, "\n") {
			if strings.HasPrefix(l, "clawdcode: warning: ") && strings.Contains(strings.ToLower(l), "summary") {
				found = true
			}
		}
		if !found {
			t.Errorf("a -p run whose summary failed said nothing about it on stderr (want a \"clawdcode: warning:\" line)\n%s", r)
		}
		if strings.Contains(r.Stdout, "summary failed") {
			t.Errorf("the fallback notice leaked into stdout\n%s", r)
		}
	})
}

// recordTokens is a record's text in the server's tokens.
// clearedStubTokens is about what a cleared result's stub weighs ("[cleared
// to save context: Read part3.txt, 2210 bytes, 30 lines, ok; Recall
// ref=… shows it]").
const clearedStubTokens = 30

func recordTokens(r record) int {
	count := textTokens
	switch {
	case r.Type == "user" && r.Message != nil, r.Type == "assistant" && r.Message != nil:
		return count(r.Message.Content)
	case r.Type == "tool_result" && r.ToolResult != nil:
		return count(r.ToolResult.Output + r.ToolResult.Error)
	case r.Type == "tool_use" && r.Tool != nil:
		return count(r.Tool.Name) + 7
	}
	return 0
}

// TestRepeatedSummaryFailuresBackOff: within one run that compacts again
// and again while the summariser keeps failing, clawdcode stops asking it
// for a while (the fallback says it skipped the model) instead of
// spending a round of retries on every compaction.
func TestRepeatedSummaryFailuresBackOff(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{Window: autoWindow})
	const reads = 14
	for i := range 4 {
		w.writeFile("chunk"+itoa(i)+".txt", bigText("chunk"+itoa(i), 110))
	}
	// One model call per request, in order: a large read each time, then
	// the answer. A counter, not the messages, decides: compaction keeps
	// changing what the messages hold.
	var mu sync.Mutex
	calls := 0
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		if isSummaryRequest(r) {
			return quickServerError(r)
		}
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls > reads {
			return llmtest.Text("all read")
		}
		// With thoughts of its own: the context ladder clears old tool
		// results before it summarises, and the test needs summaries.
		return llmtest.Reply{Text: bigText("thought"+itoa(calls), 60),
			ToolCalls: []llmtest.ToolCall{llmtest.Call("Read", `{"file_path": "chunk`+itoa(calls%4)+`.txt"}`)}}
	})
	obj := w.mustJSON("-p", "read the chunks", "--context-window", itoa(autoWindow))
	if obj.Result != "all read" {
		t.Errorf("result %q", obj.Result)
	}
	for _, q := range agentRequests(w.Server) {
		if q.Status != 200 {
			t.Errorf("an agent request was answered %d: %s", q.Status, q.Error)
		}
	}
	cs := compactions(t, readRecords(t, w.onlySession()))
	skipped := 0
	for _, c := range cs {
		m := c.summary.CompactMetadata
		if !m.Fallback {
			t.Errorf("a compaction did not fall back although the summariser always fails: %+v", m)
		}
		if strings.Contains(m.Error, "skipped") {
			skipped++
		}
	}
	sums := len(summaryRequests(w.Server))
	t.Logf("%d compactions, %d of them without asking the model; %d summarisation requests", len(cs), skipped, sums)
	if len(cs) < 4 {
		t.Fatalf("only %d compactions in %d large reads; the test needs several", len(cs), reads)
	}
	if skipped == 0 {
		t.Errorf("every one of %d compactions asked the failing summariser (%d requests)", len(cs), sums)
	}
	if asked := len(cs) - skipped; sums < asked {
		t.Errorf("%d summarisation requests for %d compactions that asked the model", sums, asked)
	}
}

// TestSummaryBackOffSurvivesContinue: the back-off holds across `-c -p`
// runs, one compaction each at most: once the summariser has failed twice
// in a row, the next compactions skip it although every run is a new
// process.
func TestSummaryBackOffSurvivesContinue(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{Window: autoWindow})
	w.Server.SetResponder(agentWithSummaries(quickServerError))
	for i := range 4 {
		w.writeFile("chunk"+itoa(i)+".txt", bigText("chunk"+itoa(i), 110))
	}
	var cs []compaction
	for i := 0; len(cs) < 4; i++ {
		if i >= 80 {
			t.Fatalf("only %d compactions after %d runs", len(cs), i)
		}
		// With words of the user's own (see fallbackSession).
		args := []string{"-p", "read chunk" + itoa(i%4) + ".txt\n" + bigText("ask"+itoa(i), 8), "--context-window", itoa(autoWindow)}
		if i > 0 {
			args = append([]string{"-c"}, args...)
		}
		w.MustRun(args...)
		cs = compactions(t, readRecords(t, w.onlySession()))
	}
	var errs []string
	for _, c := range cs {
		m := c.summary.CompactMetadata
		if !m.Fallback {
			t.Errorf("a compaction did not fall back although the summariser always fails: %+v", m)
		}
		errs = append(errs, m.Error)
	}
	t.Logf("fallback errors: %q", errs)
	for i, e := range errs[:2] {
		if strings.Contains(e, "skipped") {
			t.Errorf("compaction %d skipped the summariser before it had failed twice: %q", i+1, e)
		}
	}
	for i, e := range errs[2:4] {
		if !strings.Contains(e, "skipped") {
			t.Errorf("compaction %d, in a later run after two failures in a row, asked the summariser again: %q", i+3, e)
		}
	}
}
