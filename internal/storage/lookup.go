package storage

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"
)

// Resolve maps a full id or unique prefix to an id. Errors: ErrInvalidID (path
// separators, "..", bad characters), ErrNotFound, *AmbiguousIDError.
func (p *Project) Resolve(idOrPrefix string) (string, error) {
	if err := checkID(idOrPrefix); err != nil {
		return "", err
	}
	if fi, err := os.Stat(p.Path(idOrPrefix)); err == nil && fi.Mode().IsRegular() {
		return idOrPrefix, nil
	}
	list, err := p.List()
	if err != nil {
		return "", err
	}
	var matches []SessionInfo
	for _, s := range list {
		if strings.HasPrefix(s.ID, idOrPrefix) {
			matches = append(matches, s)
		}
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("%w: %s", ErrNotFound, idOrPrefix)
	case 1:
		return matches[0].ID, nil
	}
	return "", &AmbiguousIDError{Prefix: idOrPrefix, Candidates: matches}
}

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
	l := flock.New(path, flock.SetFlag(os.O_RDONLY))
	ok, err := l.TryLock()
	if err != nil {
		return fmt.Errorf("remove session %s: %w", id, notFound(err))
	}
	if !ok {
		return &busyError{id: id}
	}
	defer l.Unlock()
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove session %s: %w", id, notFound(err))
	}
	p.updateIndex(dir, func(m map[string]*indexEntry) { delete(m, id) })
	return nil
}
