package ctxwindow

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestStandingInstructionsRestated (issue 21, item 4): after a compaction
// whose summary keeps none of them, the pins, AGENTS.md and the user's own
// "never …" rule are restated word for word at the end of the summary
// message — the end of the compacted prefix — which stays byte for byte
// the same from one request to the next; a second compaction, whose range
// no longer holds the rule's message, still restates it.
func TestStandingInstructionsRestated(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.writeFile("AGENTS.md", "Indent Go code with tabs, never spaces (AGENTS-RULE-7).\n")
	w.Server.SetResponder(scripted("## Current work\nworking", llmtest.Text("understood")))
	rule := "Never push to the main branch without asking me first."
	w.MustRun("-p", "We work on the parser today. "+rule+" Start with the lexer.")
	w.MustRun("-c", "-p", "/pin keep the public API stable (PIN-RULE-3)")
	w.MustRun("-c", "-p", "more on the lexer")
	w.MustRun("-c", "-p", "/compact")
	w.MustRun("-c", "-p", "what now?")
	w.MustRun("-c", "-p", "and then?")

	reqs := agentRequests(w.Server)
	first, second := reqs[len(reqs)-2], reqs[len(reqs)-1]
	sum := first.Messages[1].Content
	i := strings.LastIndex(sum, "Standing instructions")
	if i < 0 {
		t.Fatalf("the summary message restates no standing instructions:\n%s", sum)
	}
	standing := sum[i:]
	for _, want := range []string{"[pin 1] keep the public API stable (PIN-RULE-3)", "Indent Go code with tabs, never spaces (AGENTS-RULE-7).", "- " + rule} {
		if !strings.Contains(standing, want) {
			t.Errorf("the standing instructions at the end of the summary lack %q:\n%s", want, sum)
		}
	}
	if second.Messages[0].Content != first.Messages[0].Content || second.Messages[1].Content != sum {
		t.Errorf("the compacted prefix changed between two requests:\n%s\n---\n%s", sum, second.Messages[1].Content)
	}

	w.MustRun("-c", "-p", "one more")
	w.MustRun("-c", "-p", "/compact")
	w.MustRun("-c", "-p", "still there?")
	reqs = agentRequests(w.Server)
	last := reqs[len(reqs)-1]
	if !strings.Contains(last.Messages[1].Content, "- "+rule) {
		t.Errorf("after a second compaction the user's rule is gone:\n%s", last.Messages[1].Content)
	}
	for _, m := range last.Messages[2:] {
		if strings.Contains(m.Content, "We work on the parser today") {
			t.Fatalf("the rule's message is still in the context, so the test proves nothing: %q", m.Content)
		}
	}
}
