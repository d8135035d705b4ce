package contextmgr

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRulePrefilterNeverHidesARule: mayLayDownRule, the substring search
// that spares a compaction the expression on messages with no rule, says
// yes wherever userRule matches — in any case, with the folds (?i) makes.
func TestRulePrefilterNeverHidesARule(t *testing.T) {
	t.Parallel()
	texts := []string{
		"Never push to main.", "ALWAYS run the tests", "Don't touch vendor/", "you Do Not need that",
		"it MUST NOT change", "you mustn't", "Under no circumstances delete it",
		"muſt not", "MUſTN'T", "alwayſ", "Read the file and say what it does.", "",
	}
	words := append([]string{"the", "file", "dont", "do", "not", "must", "nevermore", "al", "ways"}, ruleWords...)
	r := rand.New(rand.NewPCG(1, 2))
	for range 4000 {
		var b strings.Builder
		b.WriteString(strings.Repeat("x", r.IntN(9))) // every alignment to the prefilter's eight-byte blocks
		for range 1 + r.IntN(8) {
			if r.IntN(4) == 0 {
				b.WriteString([]string{"é", "—", "\n", "nn", "ww"}[r.IntN(5)])
			}
			w := []rune(words[r.IntN(len(words))])
			for i := range w {
				if r.IntN(2) == 0 {
					w[i] = []rune(strings.ToUpper(string(w[i])))[0]
				}
				if w[i] == 's' && r.IntN(4) == 0 {
					w[i] = 'ſ'
				}
			}
			b.WriteString(string(w) + " ")
		}
		texts = append(texts, b.String())
	}
	for _, text := range texts {
		if userRule.MatchString(text) && !mayLayDownRule(text) {
			t.Errorf("%q lays down a rule, and the prefilter says it does not", text)
		}
	}
	if mayLayDownRule("Read the file and say what it does.") {
		t.Error("a message with no rule word passes the prefilter")
	}
}
