package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// state is a cache, $CLAWDCODE_HOME/import/state.json, of what the last
// imports did per source file: it lets an import pass over a file that
// did not change, and its session that did not either, for two stats.
// It is never the truth: the progress marks in the sessions are (see
// storage.ImportPos). A file whose entry is missing or out of date is
// checked against its session's marks, so a lost, stale or damaged state
// costs time, never a record.
type state struct {
	path  string
	Files map[string]fileState `json:"files"`
}

type fileState struct {
	Offset  int64  `json:"offset"`  // bytes of whole lines imported
	Session string `json:"session"` // the session they went to
	Project string `json:"project"` // its project (the recorded cwd)
	// What the source and the session were when the import ended.
	Size        int64  `json:"size,omitempty"`
	ModTime     int64  `json:"mtime,omitempty"`
	SessionPath string `json:"sessionPath,omitempty"`
	SessionSize int64  `json:"sessionSize,omitempty"`
}

// unchanged reports whether the source file and its session are as the
// last import left them.
func (st *state) unchanged(path string, fi fs.FileInfo) bool {
	e, ok := st.Files[path]
	if !ok || e.Size == 0 || e.Size != fi.Size() || e.ModTime != fi.ModTime().UnixNano() {
		return false
	}
	if e.SessionPath == "" {
		return true // nothing in it to import
	}
	sfi, err := os.Lstat(e.SessionPath)
	return err == nil && sfi.Size() == e.SessionSize
}

// loadState reads the state; one that cannot be read is reported and
// taken as empty. It runs under the import lock, so a temporary file of a
// save (state-*.tmp) is one a killed import left: it is removed.
func loadState(home string, warn func(string)) *state {
	st := &state{path: filepath.Join(home, "import", "state.json"), Files: map[string]fileState{}}
	removeLeftTemps(filepath.Dir(st.path))
	b, err := storage.ReadRegular(st.path)
	if errors.Is(err, fs.ErrNotExist) {
		return st
	}
	if err == nil {
		err = json.Unmarshal(b, st)
	}
	if err != nil {
		warn(fmt.Sprintf("import state %s: %v; every file is checked against its session", st.path, err))
		st.Files = map[string]fileState{}
	}
	if st.Files == nil {
		st.Files = map[string]fileState{}
	}
	return st
}

// stateTemps names a save's temporary files (os.CreateTemp's pattern and a
// glob both).
const stateTemps = "state-*.tmp"

// removeLeftTemps deletes the temporary files of saves that were killed
// between creating and renaming them; best effort, the state never
// depends on them.
func removeLeftTemps(dir string) {
	left, _ := filepath.Glob(filepath.Join(dir, stateTemps))
	for _, p := range left {
		_ = os.Remove(p)
	}
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
	f, err := os.CreateTemp(dir, stateTemps)
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
