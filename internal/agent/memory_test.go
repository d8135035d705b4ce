package agent

import (
	"fmt"
	"os"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestFiftyCompactionsGrowTheFileByWhatWasAdded: a session compacted 50
// times grows by what each cycle adds — its turn, one boundary, one
// summary — never by copying retained messages again (Claude Code's files
// grow quadratically that way). Every record is in the file once, and the
// file is exactly the sum of what the cycles appended.
func TestFiftyCompactionsGrowTheFileByWhatWasAdded(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	agent := llmtest.Agent()
	w.srv.SetResponder(func(r llmtest.Request) llmtest.Reply {
		if llmtest.IsSummaryRequest(r) {
			return llmtest.Text("The user said several things. Nothing else to report.")
		}
		return agent(r)
	})
	e := w.engine(t, nil, 0)
	ctx := t.Context()
	if _, err := e.Turns().Submit(ctx, "the first turn", nil); err != nil {
		t.Fatal(err)
	}
	path := w.proj.Path(e.Sessions().ID())
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	start := size()
	var growth []int64
	for i := range 50 {
		before := size()
		if _, err := e.Turns().Submit(ctx, fmt.Sprintf("turn %d with some words to keep", i), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Context().Compact(ctx, ""); err != nil {
			t.Fatalf("compaction %d: %v", i+1, err)
		}
		growth = append(growth, size()-before)
	}
	recs := w.records(t, e.Sessions().ID())
	seen := map[string]bool{}
	said := map[string]bool{}
	boundaries := 0
	for _, r := range recs {
		if seen[r.UUID] {
			t.Fatalf("record %s is in the file twice", r.UUID)
		}
		seen[r.UUID] = true
		if r.IsBoundary() {
			boundaries++
		}
		// A message copied again under a new uuid would repeat its text.
		if r.Message != nil && !r.IsSummary() && !r.IsBoundary() {
			key := r.Type + "\x00" + r.Message.Content
			if said[key] {
				t.Fatalf("the %s message %q is in the file twice", r.Type, r.Message.Content)
			}
			said[key] = true
		}
	}
	if boundaries != 50 {
		t.Fatalf("%d boundaries, want 50", boundaries)
	}
	// What a cycle appends is its own turn plus one summary, whose copy of
	// the user's words is bounded (by twice the summary budget, in bytes):
	// it does not grow with the number of compactions before it.
	const userWordsBudget = 2 * 8192
	for i, g := range growth {
		if g > growth[0]+userWordsBudget {
			t.Fatalf("cycle %d appended %d bytes, cycle 1 %d: the file grows faster than the conversation", i+1, g, growth[0])
		}
	}
	if total := size(); total > start+50*(growth[0]+userWordsBudget) {
		t.Fatalf("the file is %d bytes after 50 cycles of about %d", total, growth[0])
	}
	if last, mid := growth[49], growth[39]; last > mid+mid/4 {
		t.Fatalf("cycle 40 appended %d bytes, cycle 50 %d: the growth per cycle has not levelled off", mid, last)
	}
}
