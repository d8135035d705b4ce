package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// The operations of the log.
const (
	opAdd     = "add"     // a memory the user typed
	opEdit    = "edit"    // a memory's new text
	opRemove  = "remove"  // a memory removed
	opSuggest = "suggest" // a suggestion, pending
	opAccept  = "accept"  // a suggestion become a memory (Text: as edited)
	opReject  = "reject"  // a suggestion turned down (never suggested again)
	opRetire  = "retire"  // a memory replaced by a newer one (Reason)
	opUse     = "use"     // memories given to the model (IDs)
)

// Event is one line of a memory log.
type Event struct {
	Time   time.Time `json:"ts"`
	Op     string    `json:"op"`
	ID     string    `json:"id,omitempty"`
	Text   string    `json:"text,omitempty"`
	Kind   string    `json:"kind,omitempty"`
	Source *Source   `json:"source,omitempty"`
	Reason string    `json:"reason,omitempty"`
	IDs    []string  `json:"ids,omitempty"`
}

// journal is one scope's log. dir finds (and creates) its directory for a
// write; readDir is where it is read from, without creating anything.
type journal struct {
	readDir string
	dir     func() (string, error)
}

const logName = "events.jsonl"

// lockPoll is how often a writer retries the log's lock.
const lockPoll = 5 * time.Millisecond

// append writes evs, each with its own write, under one exclusive lock.
func (j journal) append(ctx context.Context, evs ...Event) error {
	dir, err := j.dir()
	if err != nil {
		return fmt.Errorf("memory directory: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("memory directory: %w", err)
	}
	path := filepath.Join(dir, logName)
	f, err := storage.OpenRegular(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open memory log: %w", err)
	}
	defer f.Close()
	if err := storage.LockFile(ctx, f, lockPoll); err != nil {
		return fmt.Errorf("lock memory log %s: %w", path, err)
	}
	for _, ev := range evs {
		line, err := json.Marshal(ev)
		if err != nil {
			return fmt.Errorf("encode memory event: %w", err)
		}
		if _, err := f.Write(append(line, '\n')); err != nil {
			return fmt.Errorf("write memory log: %w", err)
		}
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync memory log: %w", err)
	}
	return nil
}

// read returns the log's events in order; a missing log has none, and a
// line that does not parse is skipped.
func (j journal) read() ([]Event, error) {
	data, err := storage.ReadRegular(filepath.Join(j.readDir, logName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read memory log: %w", err)
	}
	var evs []Event
	for line := range bytes.Lines(data) {
		var ev Event
		if json.Unmarshal(line, &ev) == nil && ev.Op != "" {
			evs = append(evs, ev)
		}
	}
	return evs, nil
}
