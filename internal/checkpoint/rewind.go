package checkpoint

import (
	"fmt"
	"time"
)

// A rewind that restores files can be taken back. Before its restore, the
// present content of each file it puts back is saved under the rewind
// (the uuid of its session record; the entries marked BeforeRestore, so
// no /undo takes them for a turn's); a return from the rewind restores
// that, and marks the turns the rewind's restore undid as done again, so
// /undo finds them as before. A return is itself a rewind (one back to
// where the conversation was), so it saves under its own record in turn
// and can be taken back the same way.

// RestoreForRewind restores the files changed in turns, as Restore does,
// for the rewind named rewind, having first saved their present content
// under it (ReturnChanges, Return).
func (s *Store) RestoreForRewind(rewind string, turns []string) ([]Restored, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.saveBefore(rewind, turns); err != nil {
		return nil, err
	}
	return s.restoreTurns(turns, rewind)
}

// ReturnChanges lists the files a return from rewind puts back: those its
// restore changed, as they were before it.
func (s *Store) ReturnChanges(rewind string) ([]Change, error) {
	return s.Changes([]string{rewind})
}

// Return puts the files rewind's restore changed back as they were before
// it, for the return named by (saving their present content under by
// first), and marks the turns that restore undid as done again. Like
// Restore, it does not look for changes made since: ask Drifted with
// []string{rewind} first.
func (s *Store) Return(rewind, by string) ([]Restored, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ents, err := s.entries()
	if err != nil {
		return nil, fmt.Errorf("read checkpoints: %w", err)
	}
	// The turns the rewind's restore undid: not those undone before it
	// (an /undo), which stay undone.
	var undid []string
	undone := map[string]bool{}
	for _, e := range ents {
		if e.By == rewind && len(e.Undone) > 0 {
			undid = undid[:0]
			for _, t := range e.Undone {
				if !undone[t] {
					undid = append(undid, t)
				}
			}
		}
		for _, t := range e.Undone {
			undone[t] = true
		}
		for _, t := range e.Redone {
			delete(undone, t)
		}
	}
	if err := s.saveBefore(by, []string{rewind}); err != nil {
		return nil, err
	}
	out, err := s.restoreTurns([]string{rewind}, by)
	if err != nil || len(undid) == 0 {
		return out, err
	}
	if err := s.appendEntry(entry{Redone: undid, Time: time.Now().UTC()}); err != nil {
		return out, fmt.Errorf("record the return: %w", err)
	}
	return out, nil
}

// saveBefore saves, under rewind, the present content of every file a
// restore of turns would change.
func (s *Store) saveBefore(rewind string, turns []string) error {
	changes, err := s.changes(turns)
	if err != nil {
		return err
	}
	for _, c := range changes {
		if c.Skipped != "" {
			continue
		}
		if err := s.save(rewind, c.Path, true); err != nil {
			return err
		}
	}
	return nil
}
