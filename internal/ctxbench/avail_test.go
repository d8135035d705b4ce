package ctxbench

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/storage"
)

func TestRequestRefsFindsUUIDsAndPrefixes(t *testing.T) {
	t.Parallel()
	text := "folded: Recall ref=1a2b3c4d shows one; ledger 9f8e7d6c-5b4a-4321-8fed-cba987654321 " +
		"[cleared to save context: Read src/a.txt, 4120 bytes, 80 lines, ok; Recall ref=0a1b2c3d-4e5f shows it] " +
		"again 1a2b3c4d number 4829131 word deadbeefcafe"
	got := requestRefs(text)
	want := []string{"1a2b3c4d", "9f8e7d6c-5b4a-4321-8fed-cba987654321", "0a1b2c3d-4e5f"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("requestRefs = %q, want %q (a ledger's prefix, a whole uuid, a stub's two groups, once each; "+
			"no 7-digit number, no hex word longer than a prefix)", got, want)
	}
}

func TestAvailableCountsFactsBehindARef(t *testing.T) {
	t.Parallel()
	facts := []llmtest.Fact{
		{Class: llmtest.FactArtifact, Key: "src/a.txt"},
		{Class: llmtest.FactArtifact, Key: "4829131"},
		{Class: llmtest.FactArtifact, Key: "exit status 41"},
		{Class: llmtest.FactRecall, Key: "heron-s01-0"},
	}
	records := map[string]string{
		"1a2b3c4d": "Read src/b.txt\nbudget limit   =\n 4829131", // folded, as the probe folds
		"5e6f7a8b": "ran sh scripts/check.sh: exit\nstatus 41",   // split over lines
		"99999999": "nothing planted here",
	}
	open := func(ref string) (string, bool) { s, ok := records[ref]; return s, ok }
	text := "user Read src/a.txt [cleared; ref 1a2b3c4d] [cleared; ref 5e6f7a8b] ref 99999999 ref 0badf00d"
	got := available(text, facts, open)
	want := map[string]bool{"src/a.txt": true, "4829131": true, "exit status 41": true}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("available = %v, want %v: the path is in the request, the number and the exit one Recall away; "+
			"the user's host is nowhere", got, want)
	}
	if got := available(text, facts, nil); len(got) != 1 || !got["src/a.txt"] {
		t.Errorf("without an opener only what the request holds counts; got %v", got)
	}
}

// TestSessionOpenerShowsWhatRecallShows writes a session file as the
// binary does and opens refs into it: a record's neighbours come with it
// (Recall shows two each side), a record further away does not.
func TestSessionOpenerShowsWhatRecallShows(t *testing.T) {
	t.Parallel()
	home, root := t.TempDir(), t.TempDir()
	store := storage.NewStore(home)
	proj, err := store.Project(root)
	if err != nil {
		t.Fatal(err)
	}
	s, err := proj.Create(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var recs []*storage.Record
	for i := range 12 {
		text := fmt.Sprintf("filler message %d", i)
		if i == 5 {
			text = "src/m2/queue_s03_9.txt limit = 4829131"
		}
		r := &storage.Record{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: text}}
		if _, err := s.Append(r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	open, err := sessionOpener(home, root, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	fact := []llmtest.Fact{{Class: llmtest.FactArtifact, Key: "4829131"}}
	for _, c := range []struct {
		at   int
		want bool
	}{{5, true}, {3, true}, {7, true}, {2, false}, {10, false}} {
		ref := recs[c.at].UUID[:8]
		if got := available("user see ref "+ref, fact, open)["4829131"]; got != c.want {
			t.Errorf("ref %s (record %d of 12, the fact in record 5): available = %v, want %v", ref, c.at, got, c.want)
		}
	}
	if _, ok := open("0badf00d"); ok {
		t.Error("a ref of no record opened something")
	}
}
