package ctxwindow

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// unstatedOverflowMessage is the recorded overflow message that states no
// window (OpenAI's Responses API wording, relayed by proxies), read from
// the error-body fixtures.
func unstatedOverflowMessage(t *testing.T) string {
	t.Helper()
	var bodies map[string]json.RawMessage
	if err := json.Unmarshal(fixtures.Read(t, "errors", "provider_error_bodies.json"), &bodies); err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Quoted string `json:"quoted"`
		Code   string `json:"code"`
	}
	if err := json.Unmarshal(bodies["openai"], &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if strings.HasPrefix(c.Quoted, "Your input exceeds the context window") && c.Code == "context_length_exceeded" {
			return c.Quoted
		}
	}
	t.Fatal("the fixtures lack OpenAI's \"Your input exceeds the context window\" message")
	return ""
}

// TestGuardKeepsShrinkingWithoutAStatedWindow (issue 8, bugs found from
// outside): a server with an 8k window that rejects without stating it,
// and a session with some history whose next turn reads five files at
// once (~75k tokens: ten times the real window, under the 128k the models
// table believes for gpt-4o, so nothing compacts before the first
// rejection). The guard lowers its estimate on every rejection (90% of
// the rejected request, then at least half the window believed), cuts
// the results down, compacts once the request is over the trigger, and
// retries until the request fits; the run answers. It used to lower the
// estimate once, compact once and exit 1. What it learnt is kept: the
// next -c run is not rejected.
func TestGuardKeepsShrinkingWithoutAStatedWindow(t *testing.T) {
	t.Parallel()
	const real = 8000
	w := newWorld(t, llmtest.Options{Window: real, OverflowMessage: unstatedOverflowMessage(t)})
	w.Server.SetResponder(agentWithSummaries(fixedSummary))
	var prompt []string
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		w.writeFile(name+".txt", bigText(name, 1000)) // ~60 KB, ~15k tokens each
		prompt = append(prompt, "read "+name+".txt")
	}

	// A little history first, so that there is something to compact.
	for i := range 3 {
		name := "small" + itoa(i) + ".txt"
		w.writeFile(name, bigText("small"+itoa(i), 40))
		args := []string{"-p", "read " + name}
		if i > 0 {
			args = append([]string{"-c"}, args...)
		}
		w.MustRun(args...)
	}
	start := len(w.Server.Requests())

	obj, r := w.runJSON("-c", "-p", strings.Join(prompt, "\n"))
	reqs := w.Server.Requests()[start:]
	t.Logf("server answers: %s\nstderr:\n%s", statuses(reqs), r.Stderr)
	if r.Code != 0 || obj.IsError {
		t.Fatalf("want the run to answer once the request fits the server's window\n%s", r)
	}
	if !strings.HasPrefix(obj.Result, "Tool results:") || strings.Count(obj.Result, "\n- ") != 5 {
		t.Errorf("result %.200q, want the answer to the five results", obj.Result)
	}
	rejected := 0
	for _, q := range reqs {
		if q.Status == 400 {
			rejected++
		}
	}
	if rejected < 2 {
		t.Errorf("%d rejections (%s): the scenario needs the estimate lowered more than once", rejected, statuses(reqs))
	}
	last := reqs[len(reqs)-1]
	checkNoOrphans(t, last.Messages)
	if obj.Context.Window >= 128000 || obj.Context.Window < 1024 {
		t.Errorf("effective window %d after the rejections, want one learnt below the believed 128000", obj.Context.Window)
	}

	path := w.onlySession()
	var learnt []int
	for _, rec := range windowRecords(t, path) {
		if rec.Type == "system" && rec.Subtype == "context_window" && rec.ContextWindow > 0 {
			learnt = append(learnt, rec.ContextWindow)
		}
	}
	if len(learnt) < 2 {
		t.Fatalf("context_window records %v, want one per lowering", learnt)
	}
	for i := 1; i < len(learnt); i++ {
		if learnt[i] >= learnt[i-1] {
			t.Errorf("learnt windows %v do not go down", learnt)
		}
	}

	before := len(w.Server.Requests())
	next := w.mustJSON("-c", "-p", "and now?")
	if next.Context.Window != learnt[len(learnt)-1] {
		t.Errorf("-c: window %d, want the learnt %d", next.Context.Window, learnt[len(learnt)-1])
	}
	for _, q := range w.Server.Requests()[before:] {
		if q.Status != 200 {
			t.Errorf("-c: a request was answered %d (%s): what was learnt was not kept", q.Status, statuses(w.Server.Requests()[before:]))
		}
	}
}
