package ctxwindow

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// keptNothing is a summary that keeps none of the work: every verdict
// after it must come from clawdcode's own records.
const keptNothing = "## User requests and instructions\nthe user asked for a test run\n## Current work\nnone"

// TestLedgerKeepsEveryRunnersVerdict (issue 35): a project's test run,
// passing and failing, of each runner family — its real output, from
// testdata/fixtures/runners — is taken out by a compaction whose summary
// keeps nothing; the first request after it still states both verdicts,
// read from the tool records. A script no runner's format matches gives
// its last line.
func TestLedgerKeepsEveryRunnersVerdict(t *testing.T) {
	t.Parallel()
	type run struct{ script, output, verdict string }
	cases := map[string][2]run{}
	for _, r := range fixtures.Runners {
		cases[r.Name] = [2]run{
			{r.Name + "-pass", string(fixtures.Read(t, "runners", r.Name+"-pass.txt")), r.Pass},
			{r.Name + "-fail", string(fixtures.Read(t, "runners", r.Name+"-fail.txt")), r.Fail},
		}
	}
	cases["run-tests"] = [2]run{
		{"run-tests", "building the fixtures\nrunning 12 checks\n\ntests passed: 12 of 12\n", "tests passed: 12 of 12"},
		{"run-tests-broken", "building the fixtures\nrunning 12 checks\n\ntests passed: 9 of 12\n", "tests passed: 9 of 12"},
	}
	for name, runs := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, llmtest.Options{})
			var calls []llmtest.Reply
			for i, r := range runs {
				w.writeFile(r.script+".out", r.output)
				w.writeFile(r.script, fmt.Sprintf("#!/bin/sh\ncat %s.out\nexit %d\n", r.script, i))
				calls = append(calls, llmtest.ToolCalls(llmtest.Call("Bash", fmt.Sprintf(`{"command":"sh ./%s"}`, r.script))))
			}
			w.writeFile("notes.txt", bigText("notes", 200))
			calls = append(calls, llmtest.Text("ran them"),
				llmtest.ToolCalls(llmtest.Call("Read", `{"file_path":"notes.txt"}`)), llmtest.Text("read it"))
			w.Server.SetResponder(scripted(keptNothing, calls...))
			skip := "--dangerously-skip-permissions"
			w.MustRun("-p", "run the tests", skip)
			w.MustRun("-c", "-p", "now read the notes", skip)
			w.MustRun("-c", "-p", "/compact")
			w.MustRun("-c", "-p", "where do the tests stand?", skip)

			reqs := agentRequests(w.Server)
			text := folded(requestText(reqs[len(reqs)-1]))
			if raw := folded(runs[0].output); strings.Contains(text, raw) {
				t.Fatalf("the run's whole output is still in the request: the compaction did not take it out")
			}
			for _, r := range runs {
				if !strings.Contains(text, folded(r.verdict)) {
					t.Errorf("the first request after the compaction lacks %s's verdict %q:\n%s", r.script, r.verdict, text)
				}
			}
		})
	}
}

// folded is s with its white space folded to single blanks, as the
// ledger writes each entry on one line.
func folded(s string) string { return strings.Join(strings.Fields(s), " ") }
