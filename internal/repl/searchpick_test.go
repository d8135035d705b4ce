package repl

import (
	"reflect"
	"strings"
	"testing"
)

func TestWrapStyledBreaksAtSpacesKeepingStyles(t *testing.T) {
	t.Parallel()
	b := func(s string) string { return styleBold + s + styleNormal }
	for _, tc := range []struct {
		in    string
		width int
		want  []string
	}{
		{"short line", 20, []string{"short line"}},
		{"plant a " + b("kumquat") + " tree by the old station", 16, []string{"plant a " + b("kumquat"), "tree by the old", "station"}},
		{"    indented code line here", 16, []string{"    indented", "code line here"}},
		{"a " + b("supercalifragilisticexpialidocious") + " word", 12, []string{"a", "supercalifra", "gilisticexpi", "alidocious", "word"}},
		{"", 20, []string{""}},
	} {
		got := wrapStyled(tc.in, tc.width)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("wrapStyled(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
		for _, l := range got {
			if visibleWidth(l) > max(tc.width, 10) {
				t.Errorf("wrapStyled(%q, %d): %q is wider than the width", tc.in, tc.width, l)
			}
		}
	}
}

func TestMarkWordsBoldsTheQueryWordsOnOneLine(t *testing.T) {
	t.Parallel()
	cs := colorScheme{on: true}
	got := markWords("Plant the\tkumquat\nnow \x1b[31mred", "kumquat", cs)
	if !strings.Contains(got, "Plant the "+styleBold+"kumquat"+styleNormal+" now ") || strings.ContainsAny(got, "\n\t") ||
		strings.Contains(got, "\x1b[31m") {
		t.Fatalf("markWords = %q", got)
	}
}
