package ctxwindow

import (
	"encoding/json"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestSummaryRequestSharesTheAgentsPrefix (issue 35): the summary is
// asked at the end of the agent's own request — the same system prompt,
// tools and messages — so a prompt cache serves most of it, and the
// request after the compaction shares its system prompt and tools with
// it; the receipt's "cache broken" counts the summary call's uncached
// input, as the server reported it, beside the new part of the request
// after it. (Asked apart, the summary call shares nothing with the
// agent's requests, and the server's one-prefix cache serves the next
// agent request nothing.)
func TestSummaryRequestSharesTheAgentsPrefix(t *testing.T) {
	t.Parallel()
	const window = 16000
	w := newWorld(t, llmtest.Options{Window: window, PromptCache: true})
	w.Server.SetResponder(agentWithSummaries(fixedSummary))
	files := []string{"alpha.txt", "beta.txt", "gamma.txt", "delta.txt"}
	for i, f := range files {
		w.writeFile(f, bigText(f, 100))
		args := []string{"-p", "read " + f, "--context-window", itoa(window)}
		if i > 0 {
			args = append([]string{"-c"}, args...)
		}
		w.mustJSON(args...)
	}
	agent := agentRequests(w.Server)
	last := agent[len(agent)-1]
	w.MustRun("-c", "-p", "/compact", "--context-window", itoa(window))
	w.mustJSON("-c", "-p", "go on", "--context-window", itoa(window))

	sums := summaryRequests(w.Server)
	if len(sums) != 1 {
		t.Fatalf("%d summary requests, want 1", len(sums))
	}
	sum := sums[0]
	a, _ := json.Marshal(last.Tools)
	b, _ := json.Marshal(sum.Tools)
	if string(a) != string(b) || sum.ToolChoice != "none" || sum.Messages[0].Content != last.Messages[0].Content {
		t.Errorf("the summary request does not carry the agent's system prompt and tools with tool_choice none (tool_choice %q)", sum.ToolChoice)
	}
	if sum.CachedTokens*2 < sum.Tokens {
		t.Errorf("the prompt cache served %d of the summary request's %d tokens, want most", sum.CachedTokens, sum.Tokens)
	}
	after := agentRequests(w.Server)[len(agent)]
	if after.CachedTokens == 0 {
		t.Errorf("the request after the compaction has no cached prefix: its system prompt and tools were the summary request's")
	}
	cs := compactions(t, readRecords(t, w.onlySession()))
	if len(cs) != 1 {
		t.Fatalf("%d compactions, want 1", len(cs))
	}
	var receipt struct {
		CacheBroken int `json:"cacheBroken"`
	}
	if err := json.Unmarshal(boundaryMeta(t, w.onlySession(), cs[0].boundary.UUID, "receipt"), &receipt); err != nil {
		t.Fatal(err)
	}
	fresh := sum.Tokens - sum.CachedTokens
	if receipt.CacheBroken <= fresh || receipt.CacheBroken >= fresh+cs[0].summary.CompactMetadata.PostTokens {
		t.Errorf("cacheBroken %d: want the summary call's %d uncached tokens and part of the %d-token request after it", receipt.CacheBroken, fresh, cs[0].summary.CompactMetadata.PostTokens)
	}
	t.Logf("summary request %d tokens, %d cached; request after %d tokens, %d cached; cacheBroken %d", sum.Tokens, sum.CachedTokens, after.Tokens, after.CachedTokens, receipt.CacheBroken)
}
