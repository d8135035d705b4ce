package ctxwindow

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// Small windows (issue 22): a session that starts with a small window
// sends the brief forms of the system prompt and tools, for good — its
// file says so, and a resume sends them again whatever the window then —
// and the ladder folds old rounds whose results are stubs into one line
// each, which a resume rebuilds byte for byte.

// toolsJSON is what a request's tools are, as sent.
func toolsJSON(q llmtest.Request) string {
	b, _ := json.Marshal(q.Tools)
	return string(b)
}

// TestSmallWindowSessionKeepsItsBriefForms: the 40-call tool-heavy task at
// 4k is sent the brief tools and system prompt (under half the bytes of
// the full ones a 32k session gets), the session file holds a brief_forms
// record and a collapse step, and a -c run given a 32k window sends the
// very same tools, system prompt and messages as the last request before.
func TestSmallWindowSessionKeepsItsBriefForms(t *testing.T) {
	t.Parallel()
	big := newWorld(t, llmtest.Options{Window: 32000})
	big.Server.SetResponder(agentWithSummaries(fixedSummary))
	big.mustJSON("-p", "hello", "--context-window", "32000")
	full := agentRequests(big.Server)[0]

	w := newWorld(t, llmtest.Options{Window: 4000, PromptCache: true})
	w.Server.SetResponder(toolHeavyTask(w, 4000))
	w.mustJSON("-p", "work through the files", "--context-window", "4000", "--dangerously-skip-permissions")
	agent := agentRequests(w.Server)
	before := agent[len(agent)-1]
	if b, f := len(toolsJSON(before)), len(toolsJSON(full)); 2*b > f {
		t.Errorf("the 4k session's tools take %d bytes, the 32k one's %d: want the brief forms, under half", b, f)
	}
	if strings.Contains(before.Messages[0].Content, "How to work:") || !strings.Contains(full.Messages[0].Content, "How to work:") {
		t.Errorf("want the brief system prompt at 4k and the full one at 32k:\n4k: %.300s\n32k: %.300s", before.Messages[0].Content, full.Messages[0].Content)
	}
	recs := readRecords(t, w.onlySession())
	if n := len(recordsOfSubtype(recs, "brief_forms")); n != 1 {
		t.Errorf("%d brief_forms records, want 1", n)
	}
	if !hasStep(recs, "collapse") || !hasStep(recs, "index") {
		t.Error("no context_clear record folded old rounds (collapse, index)")
	}
	if !strings.Contains(messagesJSON(before), "one line each; Recall ref shows what it returned") {
		t.Error("the last request carries no index of folded rounds")
	}

	w.mustJSON("-c", "-p", "and now?", "--context-window", "32000")
	after := agentRequests(w.Server)[len(agent)]
	if toolsJSON(after) != toolsJSON(before) || after.Messages[0].Content != before.Messages[0].Content {
		t.Fatal("the resumed run at 32k changed the tools or the system prompt the session started with")
	}
	for k := range before.Messages {
		a, _ := json.Marshal(before.Messages[k])
		b, _ := json.Marshal(after.Messages[k])
		if string(a) != string(b) {
			t.Fatalf("message %d differs after the resume:\nbefore: %.400s\nafter:  %.400s", k, a, b)
		}
	}
	w.MustRun("sessions", "check")
}

// TestLargeWindowSessionKeepsItsFullForms: a session started at 32k keeps
// the full tools and system prompt when it is continued with a 4k window.
func TestLargeWindowSessionKeepsItsFullForms(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{Window: 32000})
	w.Server.SetResponder(agentWithSummaries(fixedSummary))
	w.mustJSON("-p", "hello", "--context-window", "32000")
	w.mustJSON("-c", "-p", "and now?", "--context-window", "4000")
	agent := agentRequests(w.Server)
	first, last := agent[0], agent[len(agent)-1]
	if toolsJSON(first) != toolsJSON(last) || first.Messages[0].Content != last.Messages[0].Content {
		t.Error("the run at 4k changed the tools or the system prompt the 32k session started with")
	}
	if n := len(recordsOfSubtype(readRecords(t, w.onlySession()), "brief_forms")); n != 0 {
		t.Errorf("%d brief_forms records in a session started at 32k", n)
	}
}

// hasStep reports whether a context_clear record of recs took step.
func hasStep(recs []record, step string) bool {
	for _, c := range recordsOfSubtype(recs, "context_clear") {
		for _, s := range c.CompactMetadata.Cleared {
			if s == step {
				return true
			}
		}
	}
	return false
}

// messagesJSON is a request's messages as sent.
func messagesJSON(q llmtest.Request) string {
	b, _ := json.Marshal(q.Messages)
	return string(b)
}
