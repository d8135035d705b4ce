package tools

import (
	"fmt"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/toolcall"
)

// Recall reads a long record a page at a time: the first page with the
// record's neighbours (RecallRecordCap), and further pages by offset
// (RecallPageCap), each ending with a line that says which bytes were
// shown and gives the exact call for the next part. Everything that
// promises the model a whole text "through Recall" words it with
// toolcall.RecallWhole, so the promise and the tool agree.
const (
	// RecallPageCap bounds a page asked for by offset: the page, its
	// header and its closing line stay under OutputCap.
	RecallPageCap = OutputCap - 1000
)

// TrimPage cuts a window of a text's bytes at rune boundaries: it drops
// the continuation bytes it begins with (an offset inside a character)
// and a character its end cuts. skipped is how many bytes were dropped at
// the start, so the page begins at the window's offset plus skipped.
func TrimPage(window []byte) (page []byte, skipped int) {
	for skipped < len(window) && skipped < utf8.UTFMax-1 && !utf8.RuneStart(window[skipped]) {
		skipped++
	}
	return trimPartialRuneEnd(window[skipped:]), skipped
}

// recallPageNote is the line after a page of a record: which bytes were
// shown out of how many, and the call that shows the next part.
func recallPageNote(ref, scope string, from, to, total int) string {
	if to >= total {
		return fmt.Sprintf("[bytes %d–%d of %d: the end of record %s]", from, to, total, ref)
	}
	return fmt.Sprintf("[bytes %d–%d of %d; %s offset=%d shows the next part]", from, to, total, toolcall.RecallCall(ref, scope), to)
}
