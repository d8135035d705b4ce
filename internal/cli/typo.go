package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// misspeltCommand is the one rule for a first word that looks like a
// mistyped subcommand rather than a prompt (`clawdcode sesions`): a usage
// error suggesting the command, instead of sending the word to the model
// as the first message. It applies only when
//   - the first word is lowercase letters and '-' alone, and cobra's
//     suggestion machinery (SuggestionsFor: within
//     SuggestionsMinimumDistance edits, or a prefix) finds a subcommand; and
//   - it is the whole prompt, or the next word is a subcommand of the
//     suggested command (`sesions list`) — so a real prompt that merely
//     starts with a similar word ("imports are broken") still goes to the
//     model;
//   - and nothing was put after `--`, which is how to send such a word as
//     a prompt anyway.
//
// A word shorter than five letters is held to one edit (or a prefix): at
// two edits nearly every three-letter word ("add", "fix", "run") is some
// command's misspelling.
func misspeltCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 || cmd.ArgsLenAtDash() == 0 {
		return nil
	}
	word := args[0]
	if strings.IndexFunc(word, func(r rune) bool { return (r < 'a' || r > 'z') && r != '-' }) >= 0 {
		return nil
	}
	suggestions := cmd.SuggestionsFor(word)
	if len(word) < 5 {
		suggestions = slices.DeleteFunc(suggestions, func(name string) bool {
			return !strings.HasPrefix(name, word) && editDistance(word, name) > 1
		})
	}
	// A command the word begins is the likelier one ("session" →
	// sessions before version).
	slices.SortStableFunc(suggestions, func(a, b string) int {
		return cmpBool(strings.HasPrefix(b, word), strings.HasPrefix(a, word))
	})
	if len(args) > 1 {
		suggestions = slices.DeleteFunc(suggestions, func(name string) bool { return !hasSubcommand(cmd, name, args[1]) })
	}
	if len(suggestions) == 0 {
		return nil
	}
	quoted := make([]string, len(suggestions))
	for i, s := range suggestions {
		quoted[i] = "`clawdcode " + s + "`"
	}
	return &UsageError{Err: fmt.Errorf("unknown command %q", word), Hints: []string{
		"did you mean " + strings.Join(quoted, " or ") + "?",
		"to send it to the model as a prompt: clawdcode -- " + strings.Join(args, " "),
	}}
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// hasSubcommand reports whether parent's subcommand name has a subcommand
// (or alias) sub.
func hasSubcommand(root *cobra.Command, name, sub string) bool {
	for _, c := range root.Commands() {
		if c.Name() != name {
			continue
		}
		for _, cc := range c.Commands() {
			if cc.Name() == sub || cc.HasAlias(sub) {
				return true
			}
		}
	}
	return false
}

// editDistance is the Levenshtein distance between a and b (bytes: both are
// lowercase ASCII here).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
