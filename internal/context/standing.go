package contextmgr

import (
	"fmt"
	"regexp"
	"strings"

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
			if !userRule.MatchString(s) {
				continue
			}
			s = cutUTF8(s, standingRuleBytes)
			rules = replaceLast(rules, s, func(t string) bool { return t == s }, standingMaxRules)
		}
	}
	return rules
}

// ruleWords are userRule's words in lower case.
var ruleWords = []string{"never", "always", "don't", "do not", "must not", "mustn't", "under no circumstances"}

// mayLayDownRule reports whether text may hold a sentence userRule
// matches: it holds one of ruleWords whatever their case. It is a
// substring search, many times faster than the expression over a long
// message, and never says no where the expression would match: besides
// case, the expression's (?i) folds only 's' with 'ſ' among its letters,
// and a text with 'ſ' is left to it.
func mayLayDownRule(text string) bool {
	if strings.ContainsRune(text, 'ſ') {
		return true
	}
	lower := strings.ToLower(text)
	for _, w := range ruleWords {
		if strings.Contains(lower, w) {
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
