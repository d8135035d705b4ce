package termtext

import (
	"strings"

	"github.com/mattn/go-runewidth"
)

// Wrap breaks s into lines of at most w columns, at spaces where it can and
// inside a word only when one is longer than a line (w below 10 counts as
// 10). It is the one word-wrapping rule for what is shown to the user.
func Wrap(s string, w int) []string {
	w = max(w, 10)
	var lines []string
	for runewidth.StringWidth(s) > w {
		cut := runewidth.Truncate(s, w, "")
		if i := strings.LastIndexByte(cut, ' '); i > 0 {
			cut = cut[:i]
		}
		lines = append(lines, cut)
		s = strings.TrimLeft(s[len(cut):], " ")
	}
	return append(lines, s)
}
