package ctxbench

import (
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// The delegation suite's corpus (issue 23): exploration-heavy tasks, each
// reading several files to find one answer, played twice — the parent
// reading the files itself, or delegating the exploration through the
// Task tool to an explore subagent that reads them and answers with what
// it found. The parent's input tokens per task are the figure: a
// subagent's requests have a context of their own.

// Each exploration reads delegFiles files of about delegFileTokens tokens
// and greps once.
const (
	delegFiles      = 5
	delegFileTokens = 1500
)

// delegation is the exploration of a task handed to a subagent: the Task
// prompt (the subagent's first user message, which tells its requests
// from the parent's) and the replies the subagent plays.
type delegation struct {
	prompt  string
	replies []llmtest.Reply
}

// explorationCorpus is n sessions of tasks exploration tasks each; with
// delegate, every task delegates its exploration (the same files, the
// same facts, byte for byte, either way).
func explorationCorpus(seed uint64, n, tasks int, delegate bool) []*session {
	var out []*session
	for i := range n {
		g := newGen(seed, uint64(300+i), fmt.Sprintf("e%02d", i), "explore")
		for k := range tasks {
			g.exploreTask(k, delegate)
		}
		out = append(out, g.finish())
	}
	return out
}

// exploreTask is one task: find the limits module mK sets. Its
// exploration reads delegFiles files and greps; its answer names each
// file's limit. Delegated, the parent calls Task and answers with what
// the subagent found.
func (g *gen) exploreTask(k int, delegate bool) {
	t := task{}
	lines := []string{fmt.Sprintf("Task %s: find every limit module m%d sets and tell me where each is.", g.id("t", k), k%7)}
	lines = append(lines, g.userFacts(&t, k)...)
	topic := g.id("budget", k)
	var explore []llmtest.Reply
	var found []string
	for range delegFiles {
		path, n := g.sizedFile(topic, delegFileTokens)
		t.facts = append(t.facts,
			g.fact(llmtest.FactArtifact, "path", path, "Read "+path+"."),
			g.fact(llmtest.FactArtifact, "number", fmt.Sprint(n), fmt.Sprintf("%s limit is %d.", path, n)))
		explore = append(explore, llmtest.ToolCalls(call("Read", map[string]string{"file_path": path})))
		found = append(found, fmt.Sprintf("%s: limit = %d", path, n))
	}
	explore = append(explore, llmtest.ToolCalls(call("Grep", map[string]string{"pattern": topic})))
	answer := fmt.Sprintf("Module m%d sets %d limits:\n%s", k%7, len(found), strings.Join(found, "\n"))
	if delegate {
		prompt := fmt.Sprintf("Exploration %s: read the files of module m%d that set %s and list each file with its limit.", g.id("x", k), k%7, topic)
		t.sub = &delegation{prompt: prompt, replies: append(explore, llmtest.Text(answer))}
		t.replies = []llmtest.Reply{
			llmtest.ToolCalls(call("Task", map[string]string{"description": fmt.Sprintf("explore m%d limits", k%7), "prompt": prompt, "subagent_type": "explore"})),
			llmtest.Text(answer),
		}
	} else {
		t.replies = append(explore, llmtest.Text(answer))
	}
	t.prompt = strings.Join(lines, "\n")
	g.s.tasks = append(g.s.tasks, t)
}
