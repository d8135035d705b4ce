package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// state remembers, per source file, how far import has read it, so that
// a second import adds only what is new: $CLAWDCODE_HOME/import/state.json.
type state struct {
	path  string
	Files map[string]fileState `json:"files"`
	// mu, when set, guards Files for the import's workers.
	mu *sync.Mutex
	// dirty counts the files recorded since the last write.
	dirty int
}

func (st *state) get(path string) fileState {
	if st.mu != nil {
		st.mu.Lock()
		defer st.mu.Unlock()
	}
	return st.Files[path]
}

// set records how far a file was imported. The state is written every
// saveEvery files (and at the end, by Import): a crash in between loses
// at most that many files' progress, and those sessions, found existing,
// are reported rather than imported twice.
func (st *state) set(path string, fs fileState) error {
	if st.mu != nil {
		st.mu.Lock()
		defer st.mu.Unlock()
	}
	st.Files[path] = fs
	st.dirty++
	if st.dirty < saveEvery {
		return nil
	}
	st.dirty = 0
	return st.save(false)
}

const saveEvery = 32

type fileState struct {
	Offset  int64  `json:"offset"`  // bytes of whole lines imported
	Session string `json:"session"` // the session they went to
	Project string `json:"project"` // its project (the recorded cwd)
}

func loadState(home string) (*state, error) {
	st := &state{path: filepath.Join(home, "import", "state.json"), Files: map[string]fileState{}}
	b, err := storage.ReadRegular(st.path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read import state: %w", err)
	}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, fmt.Errorf("read import state %s: %w (remove it to import from the start; sessions imported already are not duplicated)", st.path, err)
	}
	if st.Files == nil {
		st.Files = map[string]fileState{}
	}
	return st, nil
}

// save writes the state atomically (a temporary file renamed over it);
// with sync it is on stable storage when save returns.
func (st *state) save(sync bool) error {
	dir := filepath.Dir(st.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write import state: %w", err)
	}
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("write import state: %w", err)
	}
	f, err := os.CreateTemp(dir, "state-*.tmp")
	if err != nil {
		return fmt.Errorf("write import state: %w", err)
	}
	_, err = f.Write(b)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), st.path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write import state: %w", err)
	}
	return nil
}
