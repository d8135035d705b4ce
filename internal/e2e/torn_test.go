package e2e

import (
	"bytes"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestCrashStatesOnDisk covers what a SIGKILL cannot produce but a power
// loss can: the file cut at any byte. Each cut is a state a crash may
// leave — a torn last line, a tool_use with no result, an assistant reply
// whose calls were never written, a compact_boundary without its summary —
// and from each, the file must load with at most one warning and -c must
// send requests the strict server accepts.
func TestCrashStatesOnDisk(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(threeRounds)
	flags := []string{"-p", "--dangerously-skip-permissions", "--context-window", "4000"}
	w.MustRun(append(flags, stepPrompt(1))...)
	for i := 2; i <= 6; i++ {
		w.MustRun(append(append([]string{"-c"}, flags...), stepPrompt(i))...)
	}
	id, path := w.onlySession()
	full := readFile(t, path)

	// Cut points: right after every line of an interesting kind (a clean
	// crash between two appends), inside such lines (a torn append), and
	// a few seeded random bytes.
	type cut struct {
		at   int
		why  string
		torn bool
	}
	var cuts []cut
	off := 0
	lines := bytes.SplitAfter(full, []byte("\n"))
	recs := parseSessionBytes(full).records
	for i, line := range lines {
		end := off + len(line)
		if i < len(recs) {
			r := recs[i]
			kind := r.Type
			if r.Subtype != "" {
				kind += "/" + r.Subtype
			}
			if r.IsCompactSummary {
				kind += "/summary"
			}
			switch kind {
			case "system/compact_boundary", "tool_use", "assistant", "user/summary", "user":
				cuts = append(cuts, cut{end, "after a " + kind + " line", false})
				cuts = append(cuts, cut{off + len(line)/2, "inside a " + kind + " line", true})
			}
		}
		off = end
	}
	rng := rand.New(rand.NewPCG(killSeed, 7))
	for range 4 {
		cuts = append(cuts, cut{1 + rng.IntN(len(full)-1), "at a random byte", true})
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i].at < cuts[j].at })
	// Bound the work: every boundary-related cut, and a sample of the rest.
	var chosen []cut
	for i, c := range cuts {
		if bytes.Contains([]byte(c.why), []byte("compact")) || bytes.Contains([]byte(c.why), []byte("summary")) || i%10 == 0 || c.why == "at a random byte" {
			chosen = append(chosen, c)
		}
	}
	t.Logf("%d cut points of %d", len(chosen), len(cuts))

	for _, c := range chosen {
		state := full[:c.at]
		if err := os.WriteFile(path, state, 0o600); err != nil {
			t.Fatal(err)
		}
		p := parseSessionBytes(state)
		show := w.Run("sessions", "show", id)
		if show.Code != 0 {
			t.Fatalf("cut at %d (%s): sessions show\n%s", c.at, c.why, show)
		}
		// One warning per unparsable line, and one per boundary whose
		// summary was cut off: that compaction never finished, and the
		// loader says it ignores it.
		unfinished := unfinishedBoundaries(p.records)
		if n := len(nonEmptyLines(show.Stderr)); n > len(p.bad)+unfinished || (!c.torn && n > unfinished && len(p.bad) == 0) {
			t.Errorf("cut at %d (%s): %d stderr lines for %d unparsable lines and %d unfinished compactions\n%s", c.at, c.why, n, len(p.bad), unfinished, show)
		}
		mark := len(w.Server.Requests())
		// A large window: this resume should not compact (the kill test
		// covers compaction after a crash), which keeps each cut cheap.
		obj, r := w.printJSON("-c", "-p", "--dangerously-skip-permissions", "--context-window", "64000", "continue")
		if len(p.records) == 0 {
			// Nothing of the session survived the cut: it is not listed, and
			// -c may only say there is nothing to continue.
			if r.Code != 0 && (r.Code != 1 || !strings.Contains(oneErrorLine(t, r), "no session to continue")) {
				t.Errorf("cut at %d (%s): nothing parses; want success or \"no session to continue\"\n%s", c.at, c.why, r)
			}
			t.Logf("cut at %d (%s), nothing parses: -c exit %d", c.at, c.why, r.Code)
			continue
		}
		if r.Code != 0 || obj.IsError || obj.SessionID != id {
			t.Errorf("cut at %d (%s): -c failed\n%s", c.at, c.why, r)
			continue
		}
		for _, req := range w.Server.Requests()[mark:] {
			if req.Status != 200 {
				t.Errorf("cut at %d (%s): -c sent a rejected request: %d %s", c.at, c.why, req.Status, req.Error)
			}
		}
		after := readFile(t, path)
		if !bytes.HasPrefix(after, state) {
			t.Errorf("cut at %d (%s): -c rewrote the lines before the cut", c.at, c.why)
		}
		ap := parseSessionBytes(after)
		if ap.tornTail {
			t.Errorf("cut at %d (%s): after -c the file still ends mid-line", c.at, c.why)
		}
		if len(ap.bad) > len(p.bad)+1 {
			t.Errorf("cut at %d (%s): -c glued its record onto the torn line: unparsable lines %v", c.at, c.why, ap.bad)
		}
		checkChain(t, id, ap.records)
	}
}

// unfinishedBoundaries counts the compact_boundary records not directly
// followed by their summary record.
func unfinishedBoundaries(recs []record) int {
	n := 0
	for i, r := range recs {
		if r.Subtype == "compact_boundary" && (i+1 == len(recs) || !recs[i+1].IsCompactSummary) {
			n++
		}
	}
	return n
}

// TestBoundaryWithoutSummaryKeepsHistory: a crash between the two appends
// of a compaction leaves a compact_boundary with no summary after it. The
// compaction never finished, so the context in force was the history before
// it; resuming must not drop that history without a summary in its place.
func TestBoundaryWithoutSummaryKeepsHistory(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(threeRounds)
	flags := []string{"-p", "--dangerously-skip-permissions", "--context-window", "4000"}
	w.MustRun(append(flags, stepPrompt(1))...)
	// The context ladder clears and folds old results before it
	// summarises: steps go on until one compacted.
	id, path := w.onlySession()
	for i := 2; i <= 16 && !bytes.Contains(readFile(t, path), []byte(`"compact_boundary"`)); i++ {
		w.MustRun(append(append([]string{"-c"}, flags...), stepPrompt(i))...)
	}
	full := readFile(t, path)
	recs := parseSessionBytes(full).records
	off, found := 0, false
	for i, line := range bytes.SplitAfter(full, []byte("\n")) {
		off += len(line)
		if i < len(recs) && recs[i].Subtype == "compact_boundary" {
			found = true
			break
		}
	}
	if !found {
		t.Fatal("no compaction happened; the window is too large")
	}
	if err := os.WriteFile(path, full[:off], 0o600); err != nil {
		t.Fatal(err)
	}
	mark := len(w.Server.Requests())
	// A large window, so this resume does not simply compact again.
	obj, r := w.printJSON("-c", "-p", "--context-window", "64000", "continue")
	if r.Code != 0 || obj.SessionID != id {
		t.Fatalf("-c after the crash\n%s", r)
	}
	req := w.Server.Requests()[mark]
	kept := false
	for _, m := range req.Messages {
		if bytes.Contains([]byte(m.Content), []byte(stepPrompt(1))) {
			kept = true
		}
	}
	if !kept {
		t.Errorf("the resumed request (%d messages) has neither the history before the unfinished compaction nor a summary of it: the first step's request %q is gone", len(req.Messages), stepPrompt(1))
	}
}
