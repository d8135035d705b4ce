package e2e

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// /cost counts what a session's subagents spent, in its tokens and its
// money, says how much of it was theirs, and still does after a
// compaction. The parent's replies report 10,000 prompt and 100
// completion tokens, the subagent's 50,000 and 500; two of each: 120,000
// and 1,200 in all, of which the subagent's 100,000 and 1,000. At gpt-4o's
// prices ($2.50 and $10.00 per million) that is $0.31, of which $0.26.
func TestCostCountsSubagents(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.ExtraEnv = append(w.ExtraEnv, "CLAWDCODE_CONTEXT_WINDOW=1000000")
	glob := llmtest.Call("Glob", jsonArgs(map[string]string{"pattern": "*"}))
	delegate := delegator("List the files.", glob, "There are none.")
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		if isSummaryRequest(r) {
			return llmtest.Text(summaryText)
		}
		reply, u := delegate(r), llmtest.Usage{PromptTokens: 10_000, CompletionTokens: 100}
		if isSubagent(r) {
			u = llmtest.Usage{PromptTokens: 50_000, CompletionTokens: 500}
		}
		reply.Usage = &u
		return reply
	})
	w.MustRun("-p", "delegate a listing")
	wants := []string{
		"Tokens used in this session: input 120,000, output 1,200\n",
		"  of which subagents (Task): input 100,000, output 1,000\n",
		"Estimated cost: $0.31 at gpt-4o's prices",
		"  of which subagents: $0.26\n",
	}
	check := func(when string) {
		t.Helper()
		out := w.MustRun("-c", "-p", "/cost").Stdout
		for _, want := range wants {
			if !strings.Contains(out, want) {
				t.Errorf("%s, /cost lacks %q:\n%s", when, want, out)
			}
		}
	}
	check("after the run")
	w.MustRun("-c", "-p", "/compact")
	check("after a compaction")
}
