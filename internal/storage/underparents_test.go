package storage

import (
	"strings"
	"testing"
)

// Each subagent's session follows its parent's, nested; one whose parent
// is not listed keeps its place.
func TestUnderParents(t *testing.T) {
	t.Parallel()
	in := []SessionInfo{
		{ID: "sub-b", Parent: "p2"},
		{ID: "p1"},
		{ID: "sub-a", Parent: "p2"},
		{ID: "orphan", Parent: "gone"},
		{ID: "p2"},
		{ID: "sub-of-sub", Parent: "sub-a"},
	}
	var ids []string
	for _, s := range UnderParents(in) {
		ids = append(ids, s.ID)
	}
	if got := strings.Join(ids, ","); got != "p1,orphan,p2,sub-b,sub-a,sub-of-sub" {
		t.Fatalf("order %s", got)
	}
}
