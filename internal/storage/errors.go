package storage

import (
	"errors"
	"fmt"
	"strings"
)

var (
	ErrNotFound    = errors.New("session not found")
	ErrInvalidID   = errors.New("invalid session id")
	ErrSessionBusy = errors.New("session is open in another clawdcode process")
	// ErrContextTooLarge is returned by MemoryStore when a change would take
	// it past its byte bound; the store is left as it was.
	ErrContextTooLarge = errors.New("live context exceeds its size bound")
	// ErrSessionExists is returned by CreateID for an id the project has.
	ErrSessionExists = errors.New("a session with this id exists")
	// ErrClosed is returned by a Session after Close.
	ErrClosed = errors.New("session is closed")
)

// AmbiguousIDError is returned by Match (and Resolve) when a query matches
// several sessions; Lines lists them.
type AmbiguousIDError struct {
	Prefix     string
	Candidates []SessionInfo // newest-updated first
}

// Error is Header and then Lines, one per line, so that every front end
// prints the same list.
func (e *AmbiguousIDError) Error() string {
	return e.Header() + "\n  " + strings.Join(e.Lines(), "\n  ")
}

// Header is the first line of the error, without the candidates.
func (e *AmbiguousIDError) Header() string {
	return fmt.Sprintf("ambiguous session id %q matches %d sessions", e.Prefix, len(e.Candidates))
}

// notFoundError names a session that is not there (any more): one line,
// without the file's path, which would only repeat the id. It matches
// ErrNotFound with errors.Is.
type notFoundError struct{ id string }

func (e *notFoundError) Error() string {
	return "session " + e.id + " does not exist (was it removed?)"
}

func (e *notFoundError) Is(target error) bool { return target == ErrNotFound }

// busyError names the session a second process tried to open; it matches
// ErrSessionBusy with errors.Is.
type busyError struct{ id string }

func (e *busyError) Error() string {
	return "session " + e.id + " is open in another clawdcode process"
}

func (e *busyError) Is(target error) bool { return target == ErrSessionBusy }
