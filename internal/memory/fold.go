package memory

import (
	"strings"
	"time"
)

// Scope says whom a memory is for.
type Scope string

const (
	// Project memories are given to every session of one project.
	Project Scope = "project"
	// User memories are given to every session of every project.
	User Scope = "user"
)

// Where a memory came from (Source.Kind).
const (
	SourceTyped     = "typed"     // the user typed it (/memory add, /memory edit)
	SourceSuggested = "suggested" // derived from a session's records, accepted
	SourceModel     = "model"     // written by the model on /memory suggest, accepted
)

// Kinds of memory; a newer memory of the kinds in exclusive, accepted or
// typed (kindOf), retires the older ones of its scope.
const (
	KindTest       = "test-command"
	KindBuild      = "build-command"
	KindFiles      = "files"
	KindCorrection = "correction"
	KindModel      = "model"
)

var exclusive = map[string]bool{KindTest: true, KindBuild: true}

// Source is where a memory came from: typed, or accepted from a suggestion
// derived from the records Refs (uuids) of Session.
type Source struct {
	Kind    string   `json:"kind"`
	Session string   `json:"session,omitempty"`
	Refs    []string `json:"refs,omitempty"`
}

// Memory is one memory as the log folds it.
type Memory struct {
	ID     string
	Scope  Scope
	Text   string
	Kind   string
	Source Source
	Added  time.Time
	// Changed is when it was last added, edited or accepted.
	Changed time.Time
	// Uses counts the sessions it was given to; LastUsed is the last.
	Uses     int
	LastUsed time.Time
	// Retired says why a newer memory replaced it ("" = it is live).
	Retired string
	// Stale says what it names that the project no longer has ("" = none
	// found); set by View and Prompt, never stored.
	Stale string
}

// Suggestion is a candidate memory waiting for the user's answer.
type Suggestion struct {
	ID     string
	Text   string
	Kind   string
	Source Source
	Time   time.Time
}

// folded is one scope's log folded into its current state.
type folded struct {
	memories []*Memory // in the order added
	pending  []*Suggestion
	rejected map[string]bool // normalised texts of rejected suggestions
}

func fold(scope Scope, evs []Event) *folded {
	st := &folded{rejected: map[string]bool{}}
	byID := map[string]*Memory{}
	for _, ev := range evs {
		switch ev.Op {
		case opAdd:
			m := &Memory{ID: ev.ID, Scope: scope, Text: ev.Text, Kind: ev.Kind, Added: ev.Time, Changed: ev.Time}
			if ev.Source != nil {
				m.Source = *ev.Source
			}
			if m.Kind == "" {
				m.Kind = kindOf(m.Text) // typed before kinds were kept
			}
			st.memories = append(st.memories, m)
			byID[ev.ID] = m
		case opEdit:
			if m := byID[ev.ID]; m != nil {
				m.Text, m.Changed = ev.Text, ev.Time
				if m.Source.Kind != SourceSuggested && m.Source.Kind != SourceModel {
					m.Kind = kindOf(m.Text)
				}
			}
		case opRemove:
			st.memories = removeMemory(st.memories, ev.ID)
			delete(byID, ev.ID)
		case opSuggest:
			s := &Suggestion{ID: ev.ID, Text: ev.Text, Kind: ev.Kind, Time: ev.Time}
			if ev.Source != nil {
				s.Source = *ev.Source
			}
			st.pending = append(st.pending, s)
		case opAccept:
			if m := st.accept(scope, ev); m != nil {
				byID[m.ID] = m
			}
		case opReject:
			if s := st.takePending(ev.ID); s != nil {
				st.rejected[normalise(s.Text)] = true
			}
		case opRetire:
			if m := byID[ev.ID]; m != nil {
				m.Retired = ev.Reason
			}
		case opUse:
			for _, id := range ev.IDs {
				if m := byID[id]; m != nil {
					m.Uses++
					m.LastUsed = ev.Time
				}
			}
		}
	}
	return st
}

// accept turns the pending suggestion ev names into a memory.
func (st *folded) accept(scope Scope, ev Event) *Memory {
	s := st.takePending(ev.ID)
	if s == nil {
		return nil
	}
	text := s.Text
	if ev.Text != "" {
		text = ev.Text
	}
	m := &Memory{ID: s.ID, Scope: scope, Text: text, Kind: s.Kind, Source: s.Source, Added: ev.Time, Changed: ev.Time}
	st.memories = append(st.memories, m)
	return m
}

func (st *folded) takePending(id string) *Suggestion {
	for i, s := range st.pending {
		if s.ID == id {
			st.pending = append(st.pending[:i:i], st.pending[i+1:]...)
			return s
		}
	}
	return nil
}

func removeMemory(ms []*Memory, id string) []*Memory {
	for i, m := range ms {
		if m.ID == id {
			return append(ms[:i:i], ms[i+1:]...)
		}
	}
	return ms
}

// knows reports whether text is already a memory, a pending suggestion or
// a rejected one of this scope (compared without case and spacing).
func (st *folded) knows(text string) bool {
	n := normalise(text)
	if st.rejected[n] {
		return true
	}
	for _, m := range st.memories {
		if normalise(m.Text) == n {
			return true
		}
	}
	for _, s := range st.pending {
		if normalise(s.Text) == n {
			return true
		}
	}
	return false
}

func normalise(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
