package storage

import (
	"github.com/clawdcode/clawdcode/internal/chat"
	"strings"
	"unicode/utf8"
)

// titleRunes bounds a session title.
const titleRunes = 60

// Title makes a session title from a text (a session's first user message,
// or a title given with /new): its first non-blank line, whitespace
// collapsed, shortened at a word boundary to at most titleRunes runes.
//
// The engine titles a new session with it and the index rebuild derives
// titles with it, so a title never changes when index.json is rebuilt.
func Title(text string) string {
	if said, ok := chat.CommandText(text); ok {
		text = said // an imported slash command titles as "/name args"
	}
	line := ""
	for l := range strings.SplitSeq(text, "\n") {
		if strings.TrimSpace(l) != "" {
			line = l
			break
		}
	}
	line = strings.Join(strings.Fields(line), " ")
	if utf8.RuneCountInString(line) <= titleRunes {
		return line
	}
	cut := string([]rune(line)[:titleRunes-1])
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " .,;:") + "…"
}
