package ctxwindow

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// lossySummary keeps what the user asked and none of the hard facts, as
// real summaries often do.
const lossySummary = "## User requests and instructions\nthe user asked to check the module\n## Current work\nchecking"

// TestLedgerKeepsTheFactsASummaryDrops (issue 21, item 1): with a
// summary that keeps no path, command, exit status, number or error, the
// first request after the compaction still holds every one of them — the
// evidence ledger read from the tool records — and the boundary stores
// it. A second compaction merges its ledger into the first's: the file
// edited again replaces its entry, the rest stays. /context and the
// /compact receipt show it.
func TestLedgerKeepsTheFactsASummaryDrops(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.writeFile("limits.txt", "intro line\nretry budget = 4817263\noutro line\n")
	w.writeFile("check.sh", "#!/bin/sh\necho 'ok  \tgithub.com/x/parser\t0.012s'\necho '--- FAIL: TestQuorum (0.01s)'\necho 'quorum mismatch: want 7 got 5' >&2\nexit 3\n")
	w.writeFile("main.go", "package main\n\nfunc main() {}\n")
	w.Server.SetResponder(scripted(lossySummary,
		llmtest.ToolCalls(llmtest.Call("Read", `{"file_path":"limits.txt"}`)),
		llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"sh check.sh --module quorum"}`)),
		llmtest.ToolCalls(llmtest.Call("Read", `{"file_path":"main.go"}`)),
		llmtest.ToolCalls(llmtest.Call("Edit", `{"file_path":"main.go","old_string":"func main() {}","new_string":"func main() {\n\trun()\n}"}`)),
		llmtest.ToolCalls(llmtest.Call("Edit", `{"file_path":"main.go","old_string":"no such text","new_string":"x"}`)),
		llmtest.Text("the quorum check fails; next I look at the vote counter"),
		llmtest.Text("noted"),
		// After the first compaction: main.go is written whole.
		llmtest.ToolCalls(llmtest.Call("Read", `{"file_path":"main.go"}`)),
		llmtest.ToolCalls(llmtest.Call("Write", `{"file_path":"main.go","content":"package main\n"}`)),
		llmtest.Text("rewrote it"),
		llmtest.Text("noted again"),
	))
	skip := "--dangerously-skip-permissions"
	w.MustRun("-p", "check the quorum module", skip)
	w.MustRun("-c", "-p", "thanks, remember it", skip)
	compacted := w.MustRun("-c", "-p", "/compact").Stdout
	w.MustRun("-c", "-p", "what do we know?", skip)

	reqs := agentRequests(w.Server)
	text := requestText(reqs[len(reqs)-1])
	facts := []string{
		"limits.txt budget=4817263",
		"sh check.sh --module quorum → exit status 3",
		"quorum mismatch: want 7 got 5",
		"--- FAIL: TestQuorum",
		"main.go edited -1 +3",
		"old_string not found",
	}
	for _, f := range facts {
		if !strings.Contains(text, f) {
			t.Errorf("the first request after the compaction lacks %q:\n%s", f, text)
		}
	}
	if !strings.Contains(compacted, "Evidence ledger") || !strings.Contains(compacted, "sh check.sh --module quorum  exit status 3") {
		t.Errorf("/compact's receipt does not show the ledger:\n%s", compacted)
	}
	if ctx := w.MustRun("-c", "-p", "/context").Stdout; !strings.Contains(ctx, "Evidence ledger") || !strings.Contains(ctx, "1 failed") {
		t.Errorf("/context does not show the ledger:\n%s", ctx)
	}

	w.MustRun("-c", "-p", "rewrite main.go", skip)
	w.MustRun("-c", "-p", "ok", skip)
	w.MustRun("-c", "-p", "/compact")
	var ledger struct {
		Files []struct{ Path, Op string } `json:"files"`
	}
	cs := compactions(t, readRecords(t, w.onlySession()))
	if len(cs) != 2 {
		t.Fatalf("%d compactions, want 2", len(cs))
	}
	raw := boundaryMeta(t, w.onlySession(), cs[1].boundary.UUID, "ledger")
	if err := json.Unmarshal(raw, &ledger); err != nil {
		t.Fatalf("ledger %s: %v", raw, err)
	}
	ops := map[string]string{}
	for _, f := range ledger.Files {
		if _, dup := ops[f.Path]; dup {
			t.Errorf("%s has two entries: %s", f.Path, raw)
		}
		ops[f.Path] = f.Op
	}
	if ops["main.go"] != "write" || ops["limits.txt"] != "read" {
		t.Errorf("the second boundary's files: %v (want main.go written, limits.txt read, carried forward)", ops)
	}
}

// boundaryMeta is the field of compactMetadata (receipt, ledger, …) of
// the boundary uuid in the session file path.
func boundaryMeta(t *testing.T, path, uuid, field string) json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		var r struct {
			UUID string                     `json:"uuid"`
			Meta map[string]json.RawMessage `json:"compactMetadata"`
		}
		if json.Unmarshal([]byte(line), &r) == nil && r.UUID == uuid {
			return r.Meta[field]
		}
	}
	t.Fatalf("no boundary %s", uuid)
	return nil
}

// foldedRef finds the ref the ledger's folded note names.
var foldedRef = regexp.MustCompile(`Folded for room: (\d+) entries; Recall ref=([0-9a-f]{8}) lists the whole ledger`)

// TestLedgerFoldedEntriesAreOneRecallAway (issues 21 and 22): a ledger
// longer than its share of the request folds its oldest reads, and the
// note that counts them names one ref; the model's Recall of that ref
// shows the whole ledger — the folded files' paths and numbers too, each
// with the ref of its call — so nothing the ledger held is more than one
// call away.
func TestLedgerFoldedEntriesAreOneRecallAway(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	const files = 60
	var reads []llmtest.Reply
	for i := range files {
		w.writeFile(fmt.Sprintf("limits_%02d.txt", i), fmt.Sprintf("intro\nqueue depth = %d\noutro\n", 7000100+i))
		reads = append(reads, llmtest.ToolCalls(llmtest.Call("Read", fmt.Sprintf(`{"file_path":"limits_%02d.txt"}`, i))))
	}
	w.Server.SetResponder(scripted(lossySummary, append(reads, llmtest.Text("read them all"))...))
	skip := "--dangerously-skip-permissions"
	w.MustRun("-p", "read every limits file", skip)
	w.MustRun("-c", "-p", "thanks", skip)
	w.MustRun("-c", "-p", "/compact")

	var mu sync.Mutex
	var recalled string
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		last := r.Messages[len(r.Messages)-1]
		if last.Role == "tool" {
			recalled = last.Content
			return llmtest.Text("found it")
		}
		m := foldedRef.FindStringSubmatch(requestText(r))
		if m == nil {
			return llmtest.Text("no folded entries")
		}
		return llmtest.ToolCalls(llmtest.Call("Recall", fmt.Sprintf(`{"ref":%q}`, m[2])))
	})
	w.MustRun("-c", "-p", "what was the first file's queue depth?", skip)

	reqs := agentRequests(w.Server)
	first := requestText(reqs[len(reqs)-2])
	if foldedRef.FindString(first) == "" {
		t.Fatalf("the first request after the compaction folds nothing, or names no ref for it:\n%s", first)
	}
	if strings.Contains(first, "limits_00.txt depth=7000100") {
		t.Errorf("the oldest read was not folded:\n%s", first)
	}
	if !strings.Contains(first, "limits_59.txt depth=7000159") {
		t.Errorf("the newest read is not in the ledger:\n%s", first)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{"limits_00.txt depth=7000100 ref=", "limits_59.txt depth=7000159 ref="} {
		if !strings.Contains(recalled, want) {
			t.Errorf("Recall of the folded note's ref does not show %q:\n%s", want, recalled)
		}
	}
}
