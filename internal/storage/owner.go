package storage

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// This file is the one place that decides which projects the store holds
// and which sessions a project has. Listing, -c, -r, the /resume picker,
// search's index, Recall and `sessions check` all ask it, so a session one
// of them sees is a session all of them see.

// Projects lists every project that has a directory under the store (for
// --all), sorted by root. A directory belongs to the path its .project
// marker names. One without a marker (sessions copied in by hand) belongs
// to the path its sessions record as their cwd, provided it is the
// directory that path's Project would use; anything else is not a
// project's, and is skipped with a warning through SetWarn when it holds
// sessions.
func (s *Store) Projects() ([]*Project, error) {
	ents, err := os.ReadDir(s.projectsDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	var out []*Project
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(s.projectsDir(), e.Name())
		if root, ok := s.dirOwner(dir); ok {
			out = append(out, &Project{Root: root, Dir: dir, store: s})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Root < out[j].Root })
	return out, nil
}

// dirOwner returns the root of the project whose directory dir is.
func (s *Store) dirOwner(dir string) (string, bool) {
	root, err := readMarker(dir)
	if err == nil {
		return root, root != ""
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	p := &Project{Dir: dir, store: s}
	files, err := p.SessionFiles()
	if err != nil || len(files) == 0 {
		return "", false
	}
	cwd := recordedCWD(files)
	name := filepath.Base(dir)
	if cwd != "" && filepath.IsAbs(cwd) && slices.Contains(dirCandidates(cwd), name) {
		if picked, _, err := s.pickDir(cwd); err == nil && picked == name {
			return cwd, true
		}
	}
	s.warnf("%s: skipped: no %s marker, and its sessions do not record the project this directory belongs to", dir, markerName)
	return "", false
}

// recordedCWD is the cwd the first records of a project's session files
// name ("" when none does).
func recordedCWD(files []SessionFile) string {
	for _, sf := range files {
		f, err := OpenRegular(sf.Path, os.O_RDONLY, 0)
		if err != nil {
			continue
		}
		cwd := firstCWD(f)
		f.Close()
		if cwd != "" {
			return cwd
		}
	}
	return ""
}

// firstCWD decodes the first whole lines of f for a record's cwd.
func firstCWD(f *os.File) string {
	var off int64
	for range headLines {
		end, err := nextNewline(f, off)
		if err != nil || end < 0 {
			return ""
		}
		prefix, whole, err := linePrefix(f, off, end)
		if err != nil {
			return ""
		}
		off = end + 1
		var r struct {
			CWD string `json:"cwd"`
		}
		if whole && json.Unmarshal(prefix, &r) == nil && r.CWD != "" {
			return r.CWD
		}
	}
	return ""
}

// SessionFile is one session of a project: a regular file <id>.jsonl in
// its directory.
type SessionFile struct {
	ID   string
	Path string
	Info fs.FileInfo
}

// SessionFiles lists the project's sessions, sorted by id: every regular
// file <id>.jsonl of its directory with a valid id. A <id>.jsonl that is a
// link or a special file is no session (following it could read, and a
// resume append to, a file outside CLAWDCODE_HOME): it is skipped with a
// warning through SetWarn. A directory that does not exist has none.
func (p *Project) SessionFiles() ([]SessionFile, error) {
	d, files, err := p.openSessionDir()
	if d != nil {
		d.Close()
	}
	return files, err
}

// openSessionDir is SessionFiles, and the project directory open (nil
// when it does not exist), so that the files can be opened in it
// (openAt) without walking its path again. The caller closes it.
func (p *Project) openSessionDir() (*os.File, []SessionFile, error) {
	dir := p.dir()
	d, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list sessions: %w", err)
	}
	des, err := d.ReadDir(-1)
	if err != nil {
		d.Close()
		return nil, nil, fmt.Errorf("list sessions: %w", err)
	}
	var out []SessionFile
	for _, de := range des {
		id, isSession := strings.CutSuffix(de.Name(), ".jsonl")
		if !isSession || checkID(id) != nil {
			continue
		}
		path := filepath.Join(dir, de.Name())
		if !de.Type().IsRegular() {
			p.store.warnf("%s: skipped: %s, not a regular file", path, describeMode(de.Type()))
			continue
		}
		fi, err := statAt(d, de.Name())
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since ReadDir
		}
		if err != nil {
			d.Close()
			return nil, nil, fmt.Errorf("list sessions: %w", err)
		}
		if !fi.Mode().IsRegular() {
			continue // replaced by something else since ReadDir
		}
		out = append(out, SessionFile{ID: id, Path: path, Info: fi})
	}
	slices.SortFunc(out, func(a, b SessionFile) int { return strings.Compare(a.ID, b.ID) })
	return d, out, nil
}
