package storage

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var matchSample = []SessionInfo{
	{ID: "aaaa1111-0000-4000-8000-000000000001", Title: "Fix the parser", Updated: time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)},
	{ID: "aaaa2222-0000-4000-8000-000000000002", Title: "fix CI", Updated: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)},
	{ID: "bbbb3333-0000-4000-8000-000000000003", Title: "", Updated: time.Date(2026, 4, 30, 8, 0, 0, 0, time.UTC)},
	{ID: "cccc4444-0000-4000-8000-000000000004", Title: "aaaa notes", Updated: time.Date(2026, 4, 29, 8, 0, 0, 0, time.UTC)},
}

// TestMatch is the one session matcher's rules, which -r, /switch, the
// /resume picker and sessions show/export/rm all follow.
func TestMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query string
		want  string // id prefix of the match; "" for none
		amb   int    // candidates of an ambiguous query
	}{
		{"aaaa1", "aaaa1111", 0},
		{"AAAA1", "aaaa1111", 0}, // ids without regard to case
		{"bbbb", "bbbb3333", 0},
		{"fix the", "aaaa1111", 0},  // a unique title prefix
		{"FIX  THE", "aaaa1111", 0}, // titles without regard to case or spacing
		{"fix", "", 2},
		{"aaaa", "", 2}, // ids win over the title "aaaa notes"
		{"aaaa notes", "cccc4444", 0},
		{"cccc4444-0000-4000-8000-000000000004", "cccc4444", 0},
		{"zzz", "", 0},
		{"", "", 0},
	}
	for _, tt := range tests {
		s, err := Match(matchSample, tt.query)
		var amb *AmbiguousIDError
		switch {
		case tt.want != "":
			if err != nil || !strings.HasPrefix(s.ID, tt.want) {
				t.Errorf("Match(%q) = %s, %v; want %s", tt.query, s.ID, err, tt.want)
			}
		case tt.amb > 0:
			if !errors.As(err, &amb) || len(amb.Candidates) != tt.amb {
				t.Errorf("Match(%q) = %v; want ambiguity among %d", tt.query, err, tt.amb)
			}
		default:
			if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "no session") {
				t.Errorf("Match(%q) = %v; want ErrNotFound", tt.query, err)
			}
		}
	}
}

func TestAmbiguityListsBoundedCandidates(t *testing.T) {
	t.Parallel()
	_, err := Match(matchSample, "fix")
	want := "ambiguous session id \"fix\" matches 2 sessions\n" +
		"  aaaa1111-0000-4000-8000-000000000001  2026-05-02T10:00:00Z  Fix the parser\n" +
		"  aaaa2222-0000-4000-8000-000000000002  2026-05-01T09:00:00Z  fix CI"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %q\nwant  %q", err, want)
	}
	amb := &AmbiguousIDError{Prefix: "x", Candidates: make([]SessionInfo, MaxCandidates+3)}
	if lines := amb.Lines(); len(lines) != MaxCandidates+1 || lines[MaxCandidates] != "… and 3 more" {
		t.Fatalf("long candidate list not bounded: %q", lines)
	}
}
