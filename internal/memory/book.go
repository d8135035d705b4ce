package memory

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// MaxText is the longest memory, in bytes: memories are short notes, and
// all of them share one small budget of the prompt.
const MaxText = 1000

// Book is a project's memories and the user's.
type Book struct {
	root    string
	project journal
	// below are the project journals of the working directory when it is
	// a subdirectory of the repository (Open): read with the root's.
	below    []journal
	user     journal
	now      func() time.Time
	onChange func()
}

// Open is the book of project p (whose store holds the user's memories
// too). A project's memories are its repository's (storage.RepoRoot):
// in a subdirectory they are the root's, kept in the root's project
// directory and checked against the root; the subdirectory's own, if an
// earlier run kept some there, are read with them. Nothing is read or
// created until a method needs it.
func Open(p *storage.Project) *Book {
	home := p.Store().Home()
	userDir := filepath.Join(home, "memory")
	b := &Book{
		root:    p.Root,
		project: projectJournal(p),
		user:    journal{readDir: userDir, dir: func() (string, error) { return userDir, nil }},
		now:     time.Now,
	}
	if root := storage.RepoRoot(p.Root); root != "" && root != p.Root {
		if q, err := p.Store().Project(root); err == nil {
			b.root, b.project, b.below = q.Root, projectJournal(q), []journal{b.project}
		}
	}
	return b
}

func projectJournal(p *storage.Project) journal {
	return journal{
		readDir: filepath.Join(p.Dir, "memory"),
		dir: func() (string, error) {
			d, err := p.EnsureDir()
			return filepath.Join(d, "memory"), err
		},
	}
}

// OnChange registers fn, called after every change a method of b made
// (the engine refreshes the prompt of a session not yet started).
func (b *Book) OnChange(fn func()) { b.onChange = fn }

// Root is the project root the memories are checked against.
func (b *Book) Root() string { return b.root }

func (b *Book) changed() {
	if b.onChange != nil {
		b.onChange()
	}
}

func (b *Book) journal(s Scope) journal {
	if s == User {
		return b.user
	}
	return b.project
}

// View is what /memory shows.
type View struct {
	// Memories are numbered from 1 in this order: the project's, then the
	// user's, each in the order added. Stale ones are here, marked.
	Memories []Memory
	// Retired are memories a newer one replaced, kept for the history.
	Retired []Memory
	// Suggestions wait for the user's answer, numbered from 1 in order.
	Suggestions []Suggestion
}

type state struct{ project, user *folded }

func (b *Book) load() (state, error) {
	pe, err := b.project.read()
	if err != nil {
		return state{}, fmt.Errorf("project memories: %w", err)
	}
	if len(b.below) > 0 {
		for _, j := range b.below {
			evs, err := j.read()
			if err != nil {
				return state{}, fmt.Errorf("project memories: %w", err)
			}
			pe = append(pe, evs...)
		}
		// One history: an event of the root's log may answer one of the
		// subdirectory's (a remove, an accept).
		slices.SortStableFunc(pe, func(a, b Event) int { return a.Time.Compare(b.Time) })
	}
	ue, err := b.user.read()
	if err != nil {
		return state{}, fmt.Errorf("user memories: %w", err)
	}
	return state{project: fold(Project, pe), user: fold(User, ue)}, nil
}

func (st state) scope(s Scope) *folded {
	if s == User {
		return st.user
	}
	return st.project
}

// View folds the logs and checks each live memory against the project.
func (b *Book) View() (View, error) {
	st, err := b.load()
	if err != nil {
		return View{}, err
	}
	var v View
	project := newProjectView(b.root)
	for _, m := range append(st.project.memories, st.user.memories...) {
		if m.Retired != "" {
			v.Retired = append(v.Retired, *m)
			continue
		}
		m.Stale = project.check(m.Text)
		v.Memories = append(v.Memories, *m)
	}
	for _, s := range st.project.pending { // suggestions are the project's only
		v.Suggestions = append(v.Suggestions, *s)
	}
	return v, nil
}

// cleanText is text as a memory keeps it: on one line, trimmed, bounded.
func cleanText(text string) (string, error) {
	text = strings.Join(strings.Fields(text), " ")
	switch {
	case text == "":
		return "", ErrEmpty
	case len(text) > MaxText:
		return "", fmt.Errorf("%w: at most %d bytes, this one has %d", ErrTooLong, MaxText, len(text))
	}
	return text, nil
}

// Add keeps text as a memory typed by the user. One that states the test
// or the build command (kindOf) retires the older memories of its scope
// that state the same, typed or accepted: the newer contradicts them.
// It returns the memory and those it retired.
func (b *Book) Add(ctx context.Context, scope Scope, text string) (Memory, []Memory, error) {
	text, err := cleanText(text)
	if err != nil {
		return Memory{}, nil, err
	}
	now := b.now()
	ev := Event{Time: now, Op: opAdd, ID: uuid.NewString(), Text: text, Kind: kindOf(text), Source: &Source{Kind: SourceTyped}}
	evs := []Event{ev}
	var retired []Memory
	if exclusive[ev.Kind] {
		st, err := b.load()
		if err != nil {
			return Memory{}, nil, err
		}
		evs, retired = retire(st.scope(scope), ev.Kind, now, evs)
	}
	if err := b.journal(scope).append(ctx, evs...); err != nil {
		return Memory{}, nil, err
	}
	b.changed()
	return Memory{ID: ev.ID, Scope: scope, Text: text, Kind: ev.Kind, Source: *ev.Source, Added: now, Changed: now}, retired, nil
}

// retire adds to evs a retire event for each live memory of f of kind,
// and returns them with the memories retired.
func retire(f *folded, kind string, now time.Time, evs []Event) ([]Event, []Memory) {
	var retired []Memory
	for _, m := range f.memories {
		if m.Kind == kind && m.Retired == "" {
			reason := "replaced by a newer " + kind + " memory"
			evs = append(evs, Event{Time: now, Op: opRetire, ID: m.ID, Reason: reason})
			m.Retired = reason
			retired = append(retired, *m)
		}
	}
	return evs, retired
}

// Remove removes memory n (as View numbers them).
func (b *Book) Remove(ctx context.Context, n int) (Memory, error) {
	m, err := b.nth(n)
	if err != nil {
		return Memory{}, err
	}
	if err := b.journal(m.Scope).append(ctx, Event{Time: b.now(), Op: opRemove, ID: m.ID}); err != nil {
		return Memory{}, err
	}
	b.changed()
	return m, nil
}

func (b *Book) nth(n int) (Memory, error) {
	v, err := b.View()
	if err != nil {
		return Memory{}, err
	}
	if n < 1 || n > len(v.Memories) {
		return Memory{}, fmt.Errorf("%w %d: /memory numbers %d", ErrNoSuch, n, len(v.Memories))
	}
	return v.Memories[n-1], nil
}

// Suggest keeps each candidate the scope does not know yet (as a memory,
// a pending suggestion or a rejected one) as a pending suggestion of the
// project, and returns those it kept.
func (b *Book) Suggest(ctx context.Context, cands []Suggestion) ([]Suggestion, error) {
	st, err := b.load()
	if err != nil {
		return nil, err
	}
	var evs []Event
	var kept []Suggestion
	for _, c := range cands {
		text, err := cleanText(c.Text)
		if err != nil || st.project.knows(text) {
			continue
		}
		c.ID, c.Text, c.Time = uuid.NewString(), text, b.now()
		src := c.Source
		evs = append(evs, Event{Time: c.Time, Op: opSuggest, ID: c.ID, Text: text, Kind: c.Kind, Source: &src})
		st.project.pending = append(st.project.pending, &c)
		kept = append(kept, c)
	}
	if len(evs) == 0 {
		return nil, nil
	}
	// Not a change of the memories: a suggestion is no memory until
	// accepted.
	if err := b.project.append(ctx, evs...); err != nil {
		return nil, err
	}
	return kept, nil
}

// Accept makes suggestion n (as View numbers them) a memory of the
// project, with text in place of the suggested one when text is not
// empty. A memory of the same exclusive kind (the test command, the build
// command) accepted or typed before is retired: the newer one
// contradicts it.
func (b *Book) Accept(ctx context.Context, n int, text string) (Memory, []Memory, error) {
	s, err := b.pendingNth(n)
	if err != nil {
		return Memory{}, nil, err
	}
	if text != "" {
		if text, err = cleanText(text); err != nil {
			return Memory{}, nil, err
		}
	}
	st, err := b.load()
	if err != nil {
		return Memory{}, nil, err
	}
	now := b.now()
	evs := []Event{{Time: now, Op: opAccept, ID: s.ID, Text: text}}
	var retired []Memory
	if exclusive[s.Kind] {
		evs, retired = retire(st.project, s.Kind, now, evs)
	}
	if err := b.project.append(ctx, evs...); err != nil {
		return Memory{}, nil, err
	}
	b.changed()
	if text == "" {
		text = s.Text
	}
	return Memory{ID: s.ID, Scope: Project, Text: text, Kind: s.Kind, Source: s.Source, Added: now, Changed: now}, retired, nil
}

// Reject turns suggestion n down: it is not suggested again.
func (b *Book) Reject(ctx context.Context, n int) (Suggestion, error) {
	s, err := b.pendingNth(n)
	if err != nil {
		return Suggestion{}, err
	}
	if err := b.project.append(ctx, Event{Time: b.now(), Op: opReject, ID: s.ID}); err != nil {
		return Suggestion{}, err
	}
	return s, nil
}

func (b *Book) pendingNth(n int) (Suggestion, error) {
	st, err := b.load()
	if err != nil {
		return Suggestion{}, err
	}
	if n < 1 || n > len(st.project.pending) {
		return Suggestion{}, fmt.Errorf("%w: no suggestion %d (%d pending)", ErrNoSuch, n, len(st.project.pending))
	}
	return *st.project.pending[n-1], nil
}

// RecordUse notes that the memories ids were given to a session's model,
// for the order of Prompt (most used first): one event per scope.
func (b *Book) RecordUse(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	st, err := b.load()
	if err != nil {
		return err
	}
	for _, scope := range []Scope{Project, User} {
		var mine []string
		for _, m := range st.scope(scope).memories {
			for _, id := range ids {
				if m.ID == id {
					mine = append(mine, id)
				}
			}
		}
		if len(mine) == 0 {
			continue
		}
		if err := b.journal(scope).append(ctx, Event{Time: b.now(), Op: opUse, IDs: mine}); err != nil {
			return err
		}
	}
	return nil
}
