package repl

import (
	"errors"
	"testing"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// TestChooseUsesTheSessionMatcher: the /resume picker takes a number of its
// list, or anything storage.Match takes (an id prefix, the start of a
// title), with Match's ambiguity rule.
func TestChooseUsesTheSessionMatcher(t *testing.T) {
	t.Parallel()
	list := []storage.SessionInfo{
		{ID: "aaaa1111-0000-4000-8000-000000000001", Title: "Fix the parser"},
		{ID: "aaaa2222-0000-4000-8000-000000000002", Title: "fix CI"},
		{ID: "bbbb3333-0000-4000-8000-000000000003", Title: "write docs"},
	}
	for answer, want := range map[string]string{"2": list[1].ID, "bbbb": list[2].ID, "Write": list[2].ID, "fix the": list[0].ID} {
		if got, err := choose(list, answer); err != nil || got != want {
			t.Errorf("choose(%q) = %q, %v; want %s", answer, got, err, want)
		}
	}
	var amb *storage.AmbiguousIDError
	if _, err := choose(list, "fix"); !errors.As(err, &amb) {
		t.Errorf("choose(fix) = %v, want ambiguity", err)
	}
	if _, err := choose(list, "9"); err == nil {
		t.Errorf("choose(9) accepted a number past the list")
	}
}
