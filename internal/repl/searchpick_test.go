package repl

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/search"
	"github.com/clawdcode/clawdcode/internal/storage"
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

// TestHitRecordStartsAtTheMatch: a long record is shown from the line
// before the one that holds the words, as many rows as the screen leaves,
// with what is left out counted on both sides.
func TestHitRecordStartsAtTheMatch(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range 50 {
		lines = append(lines, fmt.Sprintf("line %d of the notes", i))
	}
	lines[30] = "the kumquat is here"
	s := &session{con: &console{height: func() int { return 14 }}}
	var out strings.Builder
	hit := search.Hit{Type: "assistant"}
	s.writeHitRecord(&out, "kumquat", hit, &storage.Record{Message: &storage.Message{Content: strings.Join(lines, "\n")}}, 60)
	got := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	want := []string{
		"▶ search hit · " + hit.Timestamp.Local().Format("2006-01-02 15:04") + " · assistant",
		"  ┃ … 29 lines above",
		"  ┃ line 29 of the notes",
		"  ┃ the kumquat is here",
		"  ┃ line 31 of the notes",
		"  ┃ line 32 of the notes",
		"  ┃ line 33 of the notes",
		"  ┃ line 34 of the notes",
		"  ┃ … 15 lines below",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPickerListsTheHighlightedItemWithinTheRows: items of several rows
// are listed as many as the terminal's height holds, the highlighted one
// always among them.
func TestPickerListsTheHighlightedItemWithinTheRows(t *testing.T) {
	t.Parallel()
	items := make([]pickItem, 20)
	for i := range items {
		items[i] = pickItem{label: fmt.Sprintf("%d. item", i+1), body: func(int) []string { return []string{"a", "b"} }}
	}
	p := &picker{con: &console{height: func() int { return 20 }}, items: items}
	st := &pickState{shown: p.filter("")}
	for _, sel := range []int{0, 5, 19, 3} {
		st.sel = sel
		first, end := p.window(st, 40)
		rows := 0
		for i := first; i < end; i++ {
			rows += len(p.itemLines(items[st.shown[i]], false, 40))
		}
		if sel < first || sel >= end || rows > 12 || end-first != 4 {
			t.Errorf("sel %d: listed %d to %d (%d rows), want it among 4 items in 12 rows", sel, first, end, rows)
		}
	}
}
