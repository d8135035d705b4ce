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
	// IDs are the memories in Text (for RecordUse), and Texts their texts
	// as given (for Update).
	IDs   []string
	Texts []string
	// exported are the memories the instructions gave (exportedIn), which
	// Update does not name either.
	exported map[string]bool
}

const promptHead = "Memories the user keeps across sessions, each with where it came from. Each was checked against the project when this session started; if one disagrees with what you find, trust the project and say so.\n"

// Prompt is the section of the system prompt that gives the live memories
// to the model: not the stale, not the retired, never a suggestion; the
// most used first, then the most recently changed; as many as fit in
// budget tokens, saying how many were left out and why. instructions is
// what the same prompt gives of the project's instruction files: a
// memory /memory export wrote into clawdcode's section of AGENTS.md,
// which reaches the model there, is not given twice.
func (b *Book) Prompt(counter TokenCounter, budget int, instructions string) (Given, error) {
	v, err := b.View()
	if err != nil {
		return Given{}, err
	}
	exported := exportedIn(instructions)
	var live []Memory
	stale, inFile := 0, 0
	for _, m := range v.Memories {
		switch {
		case m.Stale != "":
			stale++
			continue
		case exported[normalise(m.Text)]:
			inFile++
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
	g := Given{exported: exported}
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
		g.Texts = append(g.Texts, live[i].Text)
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
	if inFile > 0 {
		fmt.Fprintf(&out, "(%d more %s in the project's instructions above, in AGENTS.md's project memory section.)\n", inFile, plural(inFile, "is", "are"))
	}
	g.Text = out.String()
	return g, nil
}

// exportedIn is the memories (normalised) that the project memory
// sections of instructions hold (Export's, in AGENTS.md): the lines "- "
// from a begin marker to its end marker, or to the end of what was given
// of the file when it was cut.
func exportedIn(instructions string) map[string]bool {
	out := map[string]bool{}
	for rest := instructions; ; {
		i := strings.Index(rest, beginPrefix)
		if i < 0 {
			return out
		}
		rest = rest[i+len(beginPrefix):]
		section := rest
		if j := strings.Index(rest, exportEnd); j >= 0 {
			section, rest = rest[:j], rest[j:]
		}
		for line := range strings.Lines(section) {
			if text, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
				out[normalise(text)] = true
			}
		}
	}
}

// maxUpdate bounds the memories an Update names, each way.
const maxUpdate = 20

// Update is the note that tells the model of a session under way how the
// memories changed since its prompt gave it given: the live ones it was
// not given (added, accepted or edited since), and those it was given
// that are no longer to be followed (removed, retired by a newer one,
// edited, or stale now); "" when nothing changed. It is sent after the
// conversation of each request (never recorded), so the prompt a server
// caches stays the same; a session that starts later has them in its
// prompt instead.
func (b *Book) Update(given Given) (string, error) {
	v, err := b.View()
	if err != nil {
		return "", err
	}
	was := make(map[string]string, len(given.IDs))
	for i, id := range given.IDs {
		if i < len(given.Texts) {
			was[id] = given.Texts[i]
		}
	}
	var added []string
	now := map[string]string{}
	for _, m := range v.Memories {
		if m.Stale != "" || given.exported[normalise(m.Text)] {
			continue
		}
		now[m.ID] = m.Text
		if text, ok := was[m.ID]; (!ok || text != m.Text) && len(added) < maxUpdate {
			added = append(added, fmt.Sprintf("- [%s] %s\n", describeSource(m, true), m.Text))
		}
	}
	var gone []string
	for i, id := range given.IDs {
		if text, ok := now[id]; (!ok || text != given.Texts[i]) && len(gone) < maxUpdate {
			gone = append(gone, "- "+given.Texts[i]+"\n")
		}
	}
	if len(added) == 0 && len(gone) == 0 {
		return "", nil
	}
	var out strings.Builder
	out.WriteString("The user changed their memories during this session; where these differ from the memories in the system prompt, these are the ones in force.\n")
	if len(added) > 0 {
		out.WriteString("New memories, to follow from now on:\n")
		out.WriteString(strings.Join(added, ""))
	}
	if len(gone) > 0 {
		out.WriteString("No longer to be followed (removed, replaced or changed):\n")
		out.WriteString(strings.Join(gone, ""))
	}
	return out.String(), nil
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
