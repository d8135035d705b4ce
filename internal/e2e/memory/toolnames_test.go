package memory

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// TestLowerCaseToolNamesCountEverywhere: a model that calls its tools
// `write` and `edit` (names match without case, CONTRACT §3) changed the
// file as surely as one that says Write and Edit, and every part that
// looks back at the calls says so: the summary carries the file among its
// top modified files (filesIncluded), the evidence ledger lists it as
// edited, the memory suggestions count its two changes, and /undo
// restores it.
func TestLowerCaseToolNamesCountEverywhere(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	agent := w.responder()
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		reply := agent(r)
		for i, c := range reply.ToolCalls {
			if c.Name == "Write" || c.Name == "Edit" {
				reply.ToolCalls[i].Name = strings.ToLower(c.Name)
			}
		}
		return reply
	})
	others := []string{"a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "f.txt"}
	for _, f := range others {
		w.writeFile(f, "the file "+f+"\n")
	}
	// Both changes in one run: the suggestions are derived from what a
	// run appended.
	w.runJSON("-p", "write target.go package target\nedit target.go target main", "--dangerously-skip-permissions")
	if got := w.readFile("target.go"); got != "package main" {
		t.Fatalf("the lower-case calls did not run: target.go = %q", got)
	}
	// Six files read later and mentioned more than target.go: by reads
	// and recency alone, target.go would not make the summary's top five.
	for _, f := range others {
		w.runJSON("-c", "-p", fmt.Sprintf("read %s\nread %s", f, f))
	}

	// The memory suggestions, derived when each run's session ended.
	r := w.MustRun("-c", "-p", "/memory")
	if !strings.Contains(r.Stdout, "Files most worked on: target.go") {
		t.Errorf("/memory does not suggest target.go, changed twice:\n%s", r)
	}

	w.MustRun("-c", "-p", "/compact")
	var boundary, summary *storage.CompactMetadata
	for _, rec := range records(t, w.sessions()[0]) {
		switch {
		case rec.Subtype == storage.SubtypeCompactBoundary:
			boundary = rec.CompactMetadata
		case rec.IsCompactSummary:
			summary = rec.CompactMetadata
		}
	}
	if boundary == nil || summary == nil {
		t.Fatal("no compaction in the session file after /compact")
	}
	if len(summary.FilesIncluded) == 0 || summary.FilesIncluded[0] != "target.go" {
		t.Errorf("filesIncluded = %q, want target.go first (the one file changed)", summary.FilesIncluded)
	}
	if boundary.Ledger == nil || !slices.ContainsFunc(boundary.Ledger.Files, func(f storage.LedgerFile) bool {
		return f.Path == "target.go" && f.Op == "edit"
	}) {
		t.Errorf("the ledger does not list target.go as edited: %+v", boundary.Ledger)
	}

	// /undo restores the last turn that changed a file: the one that
	// created target.go.
	r = w.MustRun("-c", "-p", "/undo")
	if !strings.Contains(r.Stdout, "removed  target.go") || w.readFile("target.go") == "package main" {
		t.Errorf("/undo did not take back target.go:\n%s", r)
	}
}
