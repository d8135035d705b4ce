package search

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// Is the index current? A search must see every record appended before
// it started (CONTRACT.md section 6), and used to stat every session file
// of the store to know, twice per search: 20,000 stats for 10,000
// sessions, more than the search itself. It now asks each project once,
// by its change stamp (storage.Stamp: the project directory's mtime,
// which the kernel moves when a session file is created, removed or
// renamed, and the store after every append): a project whose stamp is
// the one noted when its files were last compared with the index, and
// was already old enough then to be trusted (not racy), has no file the
// index does not know as it is. Only the files of a project whose stamp
// moved are stat'ed, and only their new bytes read.
//
// We chose the stamp over a journal of appends written by the store (it
// would have to be read, trimmed and kept consistent with the files, for
// what one stat per project already tells) and over stat'ing every file
// (which costs the search over 10,000 small sessions more than a third
// of what ripgrep's whole scan of them costs).
//
// What a stamp cannot tell is a session file that another program wrote
// in place (storage's stamp.go): its new records are found once the
// project's stamp moves for any reason. A line the index points into
// that is no longer there is found when a hit is read: the file is then
// indexed anew (staleFile) and the search asked again, so such a file
// never yields a wrong hit.

// scan compares the session files with the manifest. It marks files that
// vanished or were replaced as dead, and returns the files with new
// bytes; changed says the manifest must be written (it notes the
// projects' stamps).
func (ix *Index) scan(m *manifest) (jobs []*work, changed bool, err error) {
	projects, err := ix.store.Projects()
	if err != nil {
		return nil, false, err
	}
	home := ix.store.Home()
	byDir := make(map[string]int, len(m.Projects))
	for i, p := range m.Projects {
		if !p.Dead {
			byDir[p.Dir] = i
		}
	}
	seen := make(map[int]bool, len(projects))
	for _, p := range projects {
		rel, err := filepath.Rel(home, p.Dir)
		if err != nil {
			continue
		}
		now := ix.now()
		stamp, err := p.Stamp() // before the files it vouches for
		if err != nil {
			continue // removed meanwhile
		}
		pi, known := byDir[rel]
		if known && m.Projects[pi].Root != p.Root {
			// The directory is another path's now: a new project.
			m.killProject(pi)
			known, changed = false, true
		}
		if !known {
			m.Projects = append(m.Projects, projectEntry{Dir: rel, Root: p.Root})
			pi, changed = len(m.Projects)-1, true
		}
		seen[pi] = true
		pe := &m.Projects[pi]
		if known && pe.Stamp == stamp && !stamp.Racy(time.Unix(0, pe.Checked)) {
			continue // nothing changed since its files were compared
		}
		pj, err := ix.sweep(m, pi, p)
		if err != nil {
			return nil, false, err
		}
		jobs = append(jobs, pj...)
		// Written when the stamp moved, or when it can now be trusted.
		if pe.Stamp != stamp || !stamp.Racy(now) || len(pj) > 0 {
			changed = true
		}
		pe.Stamp, pe.Checked = stamp, now.UnixNano()
	}
	for i := range m.Projects {
		if !m.Projects[i].Dead && !seen[i] {
			m.killProject(i)
			changed = true
		}
	}
	return jobs, changed, nil
}

// killProject marks a project that is gone, and its files, dead.
func (m *manifest) killProject(pi int) {
	m.Projects[pi].Dead = true
	for i := range m.Files {
		if m.Files[i].Proj == pi {
			m.Files[i].Dead = true
		}
	}
}

// sweep compares one project's session files with the manifest: files
// that vanished or were replaced are marked dead, new ones added, and
// the files with new bytes returned.
func (ix *Index) sweep(m *manifest, pi int, p *storage.Project) ([]*work, error) {
	files, err := p.SessionFiles()
	if err != nil {
		return nil, nil // a project directory unreadable or removed meanwhile
	}
	live := map[string]int{}
	for i, f := range m.Files {
		if f.Proj == pi && !f.Dead {
			live[f.Session] = i
		}
	}
	var jobs []*work
	seen := make(map[int]bool, len(live))
	for _, sf := range files {
		fi := sf.Info
		id := storage.Inode(fi)
		i, ok := live[sf.ID]
		if ok && m.Files[i].ID == id && id != 0 && fi.Size() < m.Files[i].Offset {
			// Session files only grow past what was indexed (a torn
			// tail is never indexed): the manifest is wrong.
			return nil, fmt.Errorf("%s: offset %d past the end of %s: %w", manifestName, m.Files[i].Offset, m.path(i), errDamaged)
		}
		if ok && (m.Files[i].ID != id || fi.Size() < m.Files[i].Offset) {
			m.Files[i].Dead = true // replaced: index it anew
			ok = false
		}
		if !ok {
			i = m.addFile(pi, sf.ID, id)
		}
		seen[i] = true
		m.Files[i].MTime = fi.ModTime().UnixNano()
		if fi.Size() > m.Files[i].Offset {
			jobs = append(jobs, &work{file: i, path: sf.Path, start: m.Files[i].Offset, size: fi.Size()})
		}
	}
	for _, i := range live {
		if !seen[i] {
			m.Files[i].Dead = true
		}
	}
	return jobs, nil
}
