package memory

import (
	"fmt"
	"slices"
	"strings"
)

// PromptBudget is the most tokens the memories take in a session's prompt.
const PromptBudget = 2000

// TokenCounter counts the tokens of a text (*tokens.Counter).
type TokenCounter interface {
	Text(s string) int
}

// Given is what Prompt gives the model.
type Given struct {
	// Text is the memories' section of the system prompt ("" = none).
	Text string
	// IDs are the memories in Text (for RecordUse).
	IDs []string
}

const promptHead = "Memories the user keeps across sessions, each with where it came from. Each was checked against the project when this session started; if one disagrees with what you find, trust the project and say so.\n"

// Prompt is the section of the system prompt that gives the live memories
// to the model: not the stale, not the retired, never a suggestion; the
// most used first, then the most recently changed; as many as fit in
// budget tokens, saying how many were left out and why.
func (b *Book) Prompt(counter TokenCounter, budget int) (Given, error) {
	v, err := b.View()
	if err != nil {
		return Given{}, err
	}
	var live []Memory
	stale := 0
	for _, m := range v.Memories {
		if m.Stale != "" {
			stale++
			continue
		}
		live = append(live, m)
	}
	if len(live) == 0 && stale == 0 {
		return Given{}, nil
	}
	slices.SortStableFunc(live, func(a, b Memory) int {
		if a.Uses != b.Uses {
			return b.Uses - a.Uses
		}
		return b.Changed.Compare(a.Changed)
	})
	lines := make([]string, len(live))
	size := len(promptHead) + 200 // and the closing lines
	for i, m := range live {
		lines[i] = fmt.Sprintf("- [%s] %s\n", describeSource(m, true), m.Text)
		size += len(lines[i])
	}
	// A token stands for at least a byte: when the bytes fit, the tokens
	// do, and the encoder need not be loaded.
	count := counter.Text
	if size <= budget {
		count = func(string) int { return 0 }
	}
	var g Given
	var body strings.Builder
	used := count(promptHead) + 40 // and the closing lines
	left := 0
	for i, line := range lines {
		n := count(line)
		if used+n > budget {
			left++
			continue
		}
		used += n
		body.WriteString(line)
		g.IDs = append(g.IDs, live[i].ID)
	}
	var out strings.Builder
	out.WriteString(promptHead)
	out.WriteString(body.String())
	if left > 0 {
		fmt.Fprintf(&out, "(%d more %s left out to stay within %d tokens; the user can list them with /memory.)\n", left, plural(left, "memory was", "memories were"), budget)
	}
	if stale > 0 {
		fmt.Fprintf(&out, "(%d %s withheld: %s a file or command the project no longer has.)\n", stale, plural(stale, "stale memory was", "stale memories were"), plural(stale, "it names", "they name"))
	}
	g.Text = out.String()
	return g, nil
}

// describeSource is where m came from, in words; long adds the refs.
func describeSource(m Memory, long bool) string {
	var b strings.Builder
	b.WriteString(string(m.Scope))
	switch m.Source.Kind {
	case SourceSuggested:
		b.WriteString(", accepted from clawdcode's suggestion")
	case SourceModel:
		b.WriteString(", accepted from the model's suggestion")
	default:
		b.WriteString(", typed by the user")
	}
	if len(m.Source.Refs) > 0 {
		refs := m.Source.Refs
		if !long {
			refs = shortRefs(refs)
		}
		fmt.Fprintf(&b, ", from %s %s", plural(len(refs), "record", "records"), strings.Join(refs, " "))
	}
	return b.String()
}

// Describe is where m came from, for /memory: scope, source and the refs
// of the records it was derived from.
func Describe(m Memory) string { return describeSource(m, false) }

// DescribeSuggestion is where s came from, for /memory.
func DescribeSuggestion(s Suggestion) string {
	what := "derived from the session's records"
	if s.Source.Kind == SourceModel {
		what = "written by the model"
	}
	if len(s.Source.Refs) > 0 {
		refs := shortRefs(s.Source.Refs)
		what += fmt.Sprintf(" %s", strings.Join(refs, " "))
	}
	return what
}

func shortRefs(refs []string) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		if len(r) > 8 {
			r = r[:8]
		}
		out[i] = r
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
