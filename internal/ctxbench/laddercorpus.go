package ctxbench

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// The ladder suite's corpus (issue 22's small windows): sessions of long
// tool-heavy tasks whose tool outputs are each 5 to 35 % of the window,
// so that a few turns fill it and what the context does near the trigger
// (clear old results, drop superseded reads, summarise) decides whether
// the task finishes, and at what cost.

// Tool output sizes, as a share of the window, and the ladder task's
// rhythm: a check every ladderCheckEvery turns, a test run, a grep and a
// re-read of an earlier file once in each stretch of that many.
const (
	ladderMinShare   = 0.05
	ladderMaxShare   = 0.35
	ladderCheckEvery = 10
)

// ladderCorpus is n sessions of tasks tasks each, every task turns model
// requests long, sized for window, its test runs printing runs' outputs:
// the same sessions, byte for byte, for the same arguments.
func ladderCorpus(seed uint64, n, tasks, turns, window int, runs []testRun) []*session {
	var out []*session
	for i := range n {
		g := newGen(seed, uint64(200+i), fmt.Sprintf("l%02d", i), "ladder")
		g.runs = runs
		for k := range tasks {
			g.ladderTask(k, turns, window)
		}
		out = append(out, g.finish())
	}
	return out
}

// testRun is a test runner's recorded output (testdata/fixtures/runners)
// and its verdict line, which a corpus's test run plants.
type testRun struct {
	name    string // "go-pass", "jest-fail", …
	output  string
	verdict string
	failed  bool
}

// runnerRuns are the recorded runners' passing and failing runs.
func runnerRuns(t testing.TB) []testRun {
	var out []testRun
	for _, r := range fixtures.Runners {
		for _, run := range []struct {
			suffix, verdict string
			failed          bool
		}{{"pass", r.Pass, false}, {"fail", r.Fail, true}} {
			name := r.Name + "-" + run.suffix
			out = append(out, testRun{name: name, output: string(fixtures.Read(t, "runners", name+".txt")),
				verdict: run.verdict, failed: run.failed})
		}
	}
	return out
}

// testScript prints a recorded run and exits as it did.
const testScript = "#!/bin/sh\ncat \"runs/$1.txt\"\ncase \"$1\" in *-fail) exit 1;; esac\n"

// test is a run of the project's tests printing one of the recorded
// runners' outputs, passing or failing in turn, and plants its verdict.
func (g *gen) test(t *task) llmtest.ToolCall {
	run := g.runs[g.testN%len(g.runs)]
	g.testN++
	g.s.files["scripts/test.sh"] = testScript
	g.s.files["runs/"+run.name+".txt"] = run.output
	cmd := "sh scripts/test.sh " + run.name
	t.facts = append(t.facts, g.fact(llmtest.FactArtifact, "verdict", run.verdict, "The tests said: "+run.verdict+"."))
	return call("Bash", map[string]string{"command": cmd})
}

// ladderTask is one task of turns requests: mostly reads of new files of
// 5–35 % of the window each, with a grep, a re-read of a file read
// earlier in the task (a read a later one supersedes) and a failing check
// in each stretch of ladderCheckEvery turns, then the answer.
func (g *gen) ladderTask(k, turns, window int) {
	t := task{}
	lines := []string{fmt.Sprintf("Task %s: audit every module's limits and run the checks as you go.", g.id("t", k))}
	lines = append(lines, g.userFacts(&t, k)...)
	topic := g.id("budget", k)
	var read []string
	for j := range turns - 1 {
		var c llmtest.ToolCall
		switch {
		case j%ladderCheckEvery == ladderCheckEvery-1:
			c = g.check(&t, fmt.Sprintf("case-%s-%d-%d", g.s.name, k, j))
		case j%ladderCheckEvery == 4:
			c = call("Grep", map[string]string{"pattern": topic})
		case j%ladderCheckEvery == 2 && len(g.runs) > 0:
			c = g.test(&t)
		case j%ladderCheckEvery == 7 && len(read) > 0:
			c = call("Read", map[string]string{"file_path": read[g.rng.IntN(len(read))]})
		default:
			share := ladderMinShare + (ladderMaxShare-ladderMinShare)*g.rng.Float64()
			path, n := g.sizedFile(topic, int(share*float64(window)))
			read = append(read, path)
			t.facts = append(t.facts,
				g.fact(llmtest.FactArtifact, "path", path, "Read "+path+"."),
				g.fact(llmtest.FactArtifact, "number", fmt.Sprint(n), fmt.Sprintf("%s limit is %d.", path, n)))
			c = call("Read", map[string]string{"file_path": path})
		}
		t.replies = append(t.replies, llmtest.ToolCalls(c))
	}
	t.replies = append(t.replies, llmtest.Text(fmt.Sprintf("Audited %d files; the checks failed, I will look at them next.", len(read))))
	t.prompt = strings.Join(lines, "\n")
	g.s.tasks = append(g.s.tasks, t)
}

// check is a run of the check script on case name that fails with a
// planted code not used yet, and plants its command and exit status.
func (g *gen) check(t *task, name string) llmtest.ToolCall {
	if len(g.codes) == 0 {
		g.codes = g.rng.Perm(250)
	}
	code := 2 + g.codes[0]
	g.codes = g.codes[1:]
	cmd := fmt.Sprintf("sh scripts/check.sh %s %d", name, code)
	t.facts = append(t.facts,
		g.fact(llmtest.FactArtifact, "command", "check.sh "+name, "Ran "+cmd+"."),
		g.fact(llmtest.FactArtifact, "exit", fmt.Sprintf("exit status %d", code), fmt.Sprintf("It failed with exit status %d.", code)))
	return call("Bash", map[string]string{"command": cmd})
}

// sizedFile is file with about tokens tokens (o200k_base) of text around
// its planted number.
func (g *gen) sizedFile(topic string, tokens int) (string, int) {
	g.fileN++
	path := fmt.Sprintf("src/m%d/%s_%s_%d.txt", g.fileN%7, words[g.rng.IntN(len(words))], g.s.name, g.fileN)
	n := g.number()
	var b strings.Builder
	planted := false
	for have := 0; have < tokens || !planted; {
		line := g.filler(1)
		if !planted && have >= tokens/2 {
			line = fmt.Sprintf("%s limit = %d\n", topic, n)
			planted = true
		}
		have += llmtest.TextTokens(line)
		b.WriteString(line)
	}
	g.s.files[path] = b.String()
	return path, n
}
