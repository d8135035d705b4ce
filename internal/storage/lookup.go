package storage

import (
	"fmt"
	"os"
	"path/filepath"
)

// Latest returns the most recently updated session's id, or ErrNotFound.
// Like List, it passes over sessions without a message.
func (p *Project) Latest() (string, error) {
	list, err := p.List()
	if err != nil {
		return "", err
	}
	if len(list) == 0 {
		return "", fmt.Errorf("%w: no session in %s", ErrNotFound, p.Root)
	}
	return list[0].ID, nil
}

// Remove deletes a session file and its index entry. A session open in
// another process (or another Session of this one) is ErrSessionBusy.
func (p *Project) Remove(id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	dir := p.dir()
	path := filepath.Join(dir, id+".jsonl")
	f, err := OpenRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return notFound(path, err, "remove session "+id)
	}
	defer f.Close() // releases the lock
	ok, err := tryLockSoon(f)
	if err != nil {
		return fmt.Errorf("remove session %s: %w", id, err)
	}
	if !ok {
		return &busyError{id: id}
	}
	// Remove the file that was locked, not one that replaced it since.
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("remove session %s: %w", id, err)
	}
	if cur, err := os.Lstat(path); err != nil || !os.SameFile(fi, cur) {
		return &notFoundError{id: id}
	}
	if err := os.Remove(path); err != nil {
		return notFound(path, err, "remove session "+id)
	}
	p.updateIndex(dir, func(m map[string]*indexEntry) { delete(m, id) })
	return nil
}
