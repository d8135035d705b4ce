package memory

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// EditText is the memories as /memory edit shows them in the editor: one a
// line, numbered as /memory numbers them, under a "[project]" and a
// "[user]" heading.
func (b *Book) EditText() (string, error) {
	v, err := b.View()
	if err != nil {
		return "", err
	}
	var s strings.Builder
	s.WriteString("# clawdcode memories, one a line. Change a line's text to edit it, delete the\n")
	s.WriteString("# line to remove it, add a line (without a number) to add one. Lines that\n")
	s.WriteString("# begin with # are ignored. [user] memories are given to every project.\n")
	for _, scope := range []Scope{Project, User} {
		fmt.Fprintf(&s, "\n[%s]\n", scope)
		for i, m := range v.Memories {
			if m.Scope == scope {
				fmt.Fprintf(&s, "%d. %s\n", i+1, m.Text)
			}
		}
	}
	return s.String(), nil
}

// Changes counts what ApplyEdit did.
type Changes struct{ Added, Edited, Removed int }

var numbered = regexp.MustCompile(`^(\d+)\.\s+(.*)$`)

// ApplyEdit applies the text of EditText as the user edited it: a numbered
// line with a new text edits that memory, a missing number removes it, an
// unnumbered line adds one to the scope of its heading. A number that is
// not one of the memories, or that appears twice, fails and changes
// nothing; a memory moved under the other heading is removed from its
// scope and added to the other.
func (b *Book) ApplyEdit(ctx context.Context, edited string) (Changes, error) {
	v, err := b.View()
	if err != nil {
		return Changes{}, err
	}
	plan, err := parseEdit(edited, len(v.Memories))
	if err != nil {
		return Changes{}, err
	}
	evs := map[Scope][]Event{}
	var ch Changes
	now := b.now()
	for i, m := range v.Memories {
		line, kept := plan.numbered[i+1]
		switch {
		case !kept || line.scope != m.Scope:
			evs[m.Scope] = append(evs[m.Scope], Event{Time: now, Op: opRemove, ID: m.ID})
			ch.Removed++
			if kept {
				plan.added = append(plan.added, line)
			}
		case line.text != m.Text:
			evs[m.Scope] = append(evs[m.Scope], Event{Time: now, Op: opEdit, ID: m.ID, Text: line.text})
			ch.Edited++
		}
	}
	for _, l := range plan.added {
		evs[l.scope] = append(evs[l.scope], Event{Time: now, Op: opAdd, ID: uuid.NewString(), Text: l.text, Source: &Source{Kind: SourceTyped}})
		ch.Added++
	}
	for _, scope := range []Scope{Project, User} {
		if len(evs[scope]) == 0 {
			continue
		}
		if err := b.journal(scope).append(ctx, evs[scope]...); err != nil {
			return ch, err
		}
	}
	if ch != (Changes{}) {
		b.changed()
	}
	return ch, nil
}

type editLine struct {
	scope Scope
	text  string
}

type editPlan struct {
	numbered map[int]editLine
	added    []editLine
}

func parseEdit(edited string, count int) (editPlan, error) {
	plan := editPlan{numbered: map[int]editLine{}}
	scope := Project
	for i, raw := range strings.Split(edited, "\n") {
		line := strings.TrimSpace(raw)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case line == "[project]":
			scope = Project
			continue
		case line == "[user]":
			scope = User
			continue
		}
		m := numbered.FindStringSubmatch(line)
		if m == nil {
			text, err := cleanText(line)
			if err != nil {
				return plan, fmt.Errorf("line %d: %w", i+1, err)
			}
			plan.added = append(plan.added, editLine{scope, text})
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 || n > count {
			return plan, fmt.Errorf("line %d: %w %s (there are %d)", i+1, ErrNoSuch, m[1], count)
		}
		if _, dup := plan.numbered[n]; dup {
			return plan, fmt.Errorf("line %d: memory %d appears twice", i+1, n)
		}
		text, err := cleanText(m[2])
		if err != nil {
			return plan, fmt.Errorf("line %d: %w", i+1, err)
		}
		plan.numbered[n] = editLine{scope, text}
	}
	return plan, nil
}
