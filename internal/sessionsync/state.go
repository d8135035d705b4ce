package sessionsync

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// localState is what this machine remembers of one store, under
// $CLAWDCODE_HOME/sync/<store id>/: per session (by its name in the
// store: its id, or a keyed hash of it), how many bytes of the local file
// the store is known to hold (a hint: every sync checks it against the
// head's hashes before relying on it) and its lock; and, by id, the
// sessions a turn's push left pending. None of it is ever synced.
type localState struct {
	dir string
}

// sessionState is one session's record in localState.
type sessionState struct {
	// Synced is the length of the local file's prefix that is the
	// store's too (on line boundaries).
	Synced int64 `json:"synced"`
	// HeadETag is the ETag of the head Synced was read from: a pull
	// whose listing shows the same ETag has nothing to fetch.
	HeadETag string `json:"headETag,omitempty"`
	// Removed: the session was synced, then removed here (sessions rm);
	// a pull does not bring it back.
	Removed bool `json:"removed,omitempty"`
}

const syncDirName = "sync"

func newLocalState(home, storeID string) *localState {
	return &localState{dir: filepath.Join(home, syncDirName, storeID)}
}

// storeID names a store's state directory: the server and the location,
// hashed (the directory name says nothing of either).
func storeID(endpoint, location string) string {
	sum := sha256.Sum256([]byte(endpoint + "\n" + location))
	return hex.EncodeToString(sum[:8])
}

func (l *localState) path(name, ext string) string {
	return filepath.Join(l.dir, "sessions", name+ext)
}

func (l *localState) load(id string) (sessionState, error) {
	var st sessionState
	b, err := storage.ReadRegular(l.path(id, ".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read sync state of %s: %w", id, err)
	}
	if json.Unmarshal(b, &st) != nil || st.Synced < 0 {
		return sessionState{}, nil // a damaged hint is no hint: everything is checked
	}
	return st, nil
}

func (l *localState) save(id string, st sessionState) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(l.dir, "sessions"), 0o700); err != nil {
		return fmt.Errorf("save sync state of %s: %w", id, err)
	}
	if err := storage.WriteFileAtomic(l.path(id, ".json"), b); err != nil {
		return fmt.Errorf("save sync state of %s: %w", id, err)
	}
	return nil
}

// lock takes the session's sync lock without waiting: ok is false when
// another push or pull of it (this process's or another's) holds it.
func (l *localState) lock(id string) (unlock func(), ok bool, err error) {
	if err := os.MkdirAll(filepath.Join(l.dir, "sessions"), 0o700); err != nil {
		return nil, false, fmt.Errorf("lock sync of %s: %w", id, err)
	}
	f, err := storage.OpenRegular(l.path(id, ".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("lock sync of %s: %w", id, err)
	}
	ok, err = storage.TryLockFile(f)
	if err != nil || !ok {
		f.Close()
		return nil, false, err
	}
	return func() { f.Close() }, true, nil
}

// pending marks sessions whose push a turn started: one that was still
// running when its process exited is finished by the next run (see
// Auto). The file holds the session's project root.
func (l *localState) markPending(id, root string) error {
	dir := filepath.Join(l.dir, "pending")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return storage.WriteFileAtomic(filepath.Join(dir, id), []byte(root))
}

func (l *localState) clearPending(id string) {
	_ = os.Remove(filepath.Join(l.dir, "pending", id))
}

// pendings lists the sessions marked pending, by id, with their roots.
func (l *localState) pendings() map[string]string {
	dir := filepath.Join(l.dir, "pending")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, e := range ents {
		if !validID(e.Name()) {
			continue
		}
		if b, err := storage.ReadRegular(filepath.Join(dir, e.Name())); err == nil && filepath.IsAbs(string(b)) {
			out[e.Name()] = string(b)
		}
	}
	return out
}

// foreignMarker is the marker of a session pulled from a teammate's store
// (--from): a push to the user's own store leaves those alone.
func foreignMarker(home, id string) string {
	return filepath.Join(home, syncDirName, "foreign", id)
}

func markForeign(home, id, location string) error {
	dir := filepath.Dir(foreignMarker(home, id))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return storage.WriteFileAtomic(foreignMarker(home, id), []byte(location))
}

// foreignOrigin is the store a session was pulled from with --from ("" =
// none: the session is this machine's or its own store's).
func foreignOrigin(home, id string) string {
	b, err := storage.ReadRegular(foreignMarker(home, id))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
