package contextmgr

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// Standing instructions are what the user wants in force for the whole
// session: the pins, the project's instruction files (AGENTS.md,
// CLAUDE.md) and the user's explicit constraints in their messages
// ("never …", "always …", "don't …"). The system prompt holds the first
// two at the start of every request, where a long context attends least;
// a compaction restates all three word for word as the last part of its
// afterword — the end of the compacted prefix — and carries the user's
// constraints on its boundary (compactMetadata.userRules), since the
// messages they came from leave the context.

// Bounds of the user's constraints kept: the latest standingMaxRules,
// each cut to standingRuleBytes; and the share of the window the project's
// instruction files may take when restated (past it they are named only).
const (
	standingMaxRules       = 30
	standingRuleBytes      = 400
	standingFilesShare     = 0.10
	standingHeading        = "Standing instructions, restated word for word (in force whatever the summary says):"
	standingFilesNamedOnly = "The project's instruction files in the system prompt (%s) stay in force; they are too long to restate here."
)

var (
	// userRule tells a sentence that lays down a rule.
	userRule = regexp.MustCompile(`(?i)\b(?:never|always|don't|do not|must not|mustn't|under no circumstances)\b`)
	// instructionFileEnd closes a file's block in the system prompt.
	instructionFileEnd = regexp.MustCompile(`(?m)^</([A-Za-z0-9_.-]+)>$`)
)

// userRules are the sentences of the user messages of es that lay down a
// rule, word for word, added to prev (an earlier one said again moves to
// the end), the latest standingMaxRules.
func userRules(prev []string, es []*entry) []string {
	rules := append([]string(nil), prev...)
	for _, e := range es {
		r := e.rec
		if r.Type != storage.TypeUser || r.IsCompactSummary {
			continue
		}
		text := messageContent(r)
		if !mayLayDownRule(text) {
			continue // most messages lay down no rule: no need to split them
		}
		for _, s := range sentences(text) {
			if !mayLayDownRule(s) || !userRule.MatchString(s) {
				continue
			}
			s = cutUTF8(s, standingRuleBytes)
			rules = append(slices.DeleteFunc(rules, func(t string) bool { return t == s }), s)
			rules = rules[max(0, len(rules)-standingMaxRules):]
		}
	}
	return rules
}

// ruleWords are userRule's words in lower case.
var ruleWords = []string{"never", "always", "don't", "do not", "must not", "mustn't", "under no circumstances"}

// ruleAnchor is, for each of ruleWords, the first of its letters that is
// an 'n' ('w' for "always"): rarer than their first letters, so fewer
// places of a text are looked at. ruleAnchored tells those letters, in
// either case; ruleNext[a][b]: some rule word has b (in lower case) right
// after its anchor a, so most anchors are passed over at one more byte.
var ruleAnchor, ruleAnchored, ruleNext = func() (at []int, anchored [utf8.RuneSelf]bool, next [utf8.RuneSelf][utf8.RuneSelf]bool) {
	for _, w := range ruleWords {
		i := strings.IndexAny(w, "nw")
		if i < 0 || i+1 >= len(w) {
			panic("rule word " + w + " has no n or w before its end")
		}
		at = append(at, i)
		anchored[w[i]], anchored[w[i]&^0x20] = true, true
		next[w[i]][w[i+1]|0x20] = true
	}
	return at, anchored, next
}()

// mayLayDownRule reports whether text may hold a sentence userRule
// matches: it holds one of ruleWords whatever their case. It looks at
// eight bytes at a time and stops only where one is an 'n', a 'w' or not
// ASCII, allocating nothing: many times faster than the expression over a
// long message. It never says no where the expression would match: (?i)
// folds an ASCII letter with another only by case, except 's' with 'ſ'
// among the rule words' letters, and a text with 'ſ' is left to the
// expression.
func mayLayDownRule(text string) bool {
	const (
		ones   = 0x0101010101010101
		highs  = 0x8080808080808080
		lowers = 0x2020202020202020
	)
	// hasByte: some byte of x is c (x's bytes ASCII, after |lowers).
	hasByte := func(x, c uint64) bool {
		v := x ^ c*ones
		return (v-ones)&^v&highs != 0
	}
	i := 0
	for ; i+8 <= len(text); i += 8 {
		x := uint64(text[i]) | uint64(text[i+1])<<8 | uint64(text[i+2])<<16 | uint64(text[i+3])<<24 |
			uint64(text[i+4])<<32 | uint64(text[i+5])<<40 | uint64(text[i+6])<<48 | uint64(text[i+7])<<56
		if x&highs == 0 && !hasByte(x|lowers, 'n') && !hasByte(x|lowers, 'w') {
			continue
		}
		for j := i; j < i+8; j++ {
			if c := text[j]; (c >= utf8.RuneSelf || ruleAnchored[c]) && ruleAt(text, j) {
				return true
			}
		}
	}
	for ; i < len(text); i++ {
		if ruleAt(text, i) {
			return true
		}
	}
	return false
}

// ruleAt reports whether a rule word whose anchor is at i, or an 'ſ',
// starts near i in text.
func ruleAt(text string, i int) bool {
	c := text[i]
	if c >= utf8.RuneSelf {
		return strings.HasPrefix(text[i:], "ſ")
	}
	if !ruleAnchored[c] || i+1 >= len(text) || text[i+1] >= utf8.RuneSelf {
		return false
	}
	c |= 0x20 // lower case: it is a letter
	if !ruleNext[c][text[i+1]|0x20] {
		return false
	}
	for k, w := range ruleWords {
		at := ruleAnchor[k]
		if w[at] == c && i >= at && len(text)-(i-at) >= len(w) && strings.EqualFold(text[i-at:i-at+len(w)], w) {
			return true
		}
	}
	return false
}

// sentences splits text at sentence ends and line breaks, trimmed.
func sentences(text string) []string {
	var out []string
	from := 0
	for _, end := range append(sentenceEnd.FindAllStringIndex(text, -1), []int{len(text), len(text)}) {
		if s := strings.TrimSpace(text[from : end[0]+min(1, end[1]-end[0])]); s != "" {
			out = append(out, s)
		}
		from = end[1]
	}
	return out
}

// standingText is the afterword's last part ("" = nothing standing): the
// pins, the project's instruction files (named only when they weigh more
// than filesBudget tokens by size) and the user's rules.
func standingText(pins []storage.Pin, files string, rules []string, filesBudget int, size func(string) int) string {
	var b strings.Builder
	for i, p := range pins {
		fmt.Fprintf(&b, "\n[pin %d] %s", i+1, p.Text)
	}
	if files = strings.TrimSpace(files); files != "" {
		if size(files) <= filesBudget {
			b.WriteString("\n" + files)
		} else {
			fmt.Fprintf(&b, "\n"+standingFilesNamedOnly, strings.Join(instructionFileNames(files), ", "))
		}
	}
	if len(rules) > 0 {
		b.WriteString("\nWhat the user told you, in their words:")
		for _, r := range rules {
			b.WriteString("\n- " + r)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return standingHeading + b.String()
}

// instructionFileNames are the files an instructions block holds, by the
// tags the system prompt wraps each in.
func instructionFileNames(files string) []string {
	var names []string
	for _, m := range instructionFileEnd.FindAllStringSubmatch(files, -1) {
		names = append(names, m[1])
	}
	return names
}
