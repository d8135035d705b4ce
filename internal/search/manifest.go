package search

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// errOldFormat is an index written by an earlier clawdcode: it is
// rebuilt, and that is no damage.
var errOldFormat = errors.New("search index of an older format")

// The manifest is the index's table of contents: the projects it covers,
// with the change stamp each had when its session files were last
// compared with the index (see freshness in index.go), the session files
// with how many bytes of whole lines of each the segments cover, and the
// segments. It is read by every search, so it is binary, not JSON (a
// store of 10,000 sessions made a 2.4 MB JSON manifest, a tenth of a
// warm search's time to decode):
//
//	"CCMANIF" version(byte)
//	projects: n, then each: dir, root, stamp mtime, stamp inode, checked, dead
//	files:    n, then each: project, session, offset, inode, mtime, dead
//	segments: n, then each: name, docs, terms, size
//	CRC-32C of everything before it (uint32, little-endian)
//
// Numbers are uvarints (signed ones zigzag varints), strings a uvarint
// length and their bytes, flags one byte.
const manifestMagic = "CCMANIF"

// manifest is the table of contents in memory. Positions in Projects and
// Files are what files and documents refer to, so entries are never
// removed: a project or file that is gone is marked Dead, its documents
// are skipped and dropped when their segment is merged, and a replaced
// file gets a new entry.
type manifest struct {
	Version  int
	Projects []projectEntry
	Files    []fileEntry
	Segments []segEntry
}

// projectEntry is one project directory.
type projectEntry struct {
	Dir     string // relative to CLAWDCODE_HOME: projects/<name>
	Root    string // the project's path
	Stamp   storage.Stamp
	Checked int64 // when Stamp was read (unix ns), before the files were
	Dead    bool
}

// fileEntry is one session file.
type fileEntry struct {
	Proj    int    // its project, in Projects
	Session string // the session id: the file is Dir/<Session>.jsonl
	Offset  int64  // bytes of whole lines indexed
	ID      uint64 // the file's inode: a file replaced under its name is another
	MTime   int64  // its mtime (unix ns) when last compared: a line not where
	// the index says in a file whose mtime moved since was written by
	// another program (a stale file, indexed anew), in one whose did not,
	// damage
	Dead bool
	// The project's root, from Proj when the manifest is decoded or the
	// entry added, never stored.
	Project string
}

// path is file i's path, relative to CLAWDCODE_HOME.
func (m *manifest) path(i int) string {
	f := &m.Files[i]
	return filepath.Join(m.Projects[f.Proj].Dir, f.Session+".jsonl")
}

type segEntry struct {
	Name    string
	Docs    int
	TotalDL uint64
	Size    int64
}

func (m *manifest) addFile(proj int, session string, id uint64) int {
	m.Files = append(m.Files, fileEntry{Proj: proj, Session: session, ID: id, Project: m.Projects[proj].Root})
	return len(m.Files) - 1
}

func encodeManifest(m *manifest) []byte {
	b := append([]byte(manifestMagic), byte(m.Version))
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	flag := func(v bool) {
		if v {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(m.Projects)))
	for _, p := range m.Projects {
		str(p.Dir)
		str(p.Root)
		b = binary.AppendVarint(b, p.Stamp.ModTime)
		b = binary.AppendUvarint(b, p.Stamp.Ino)
		b = binary.AppendVarint(b, p.Checked)
		flag(p.Dead)
	}
	b = binary.AppendUvarint(b, uint64(len(m.Files)))
	for _, f := range m.Files {
		b = binary.AppendUvarint(b, uint64(f.Proj))
		str(f.Session)
		b = binary.AppendUvarint(b, uint64(f.Offset))
		b = binary.AppendUvarint(b, f.ID)
		b = binary.AppendVarint(b, f.MTime)
		flag(f.Dead)
	}
	b = binary.AppendUvarint(b, uint64(len(m.Segments)))
	for _, s := range m.Segments {
		str(s.Name)
		b = binary.AppendUvarint(b, uint64(s.Docs))
		b = binary.AppendUvarint(b, s.TotalDL)
		b = binary.AppendUvarint(b, uint64(s.Size))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli()))
}

// manifestReader reads the fields of a manifest, noting the first thing
// that does not hold together.
type manifestReader struct {
	b   []byte
	bad bool
}

func (r *manifestReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *manifestReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a number of entries, each at least min bytes long.
func (r *manifestReader) count(min int) int {
	n := r.uvarint()
	if n > uint64(len(r.b)/min) {
		r.bad = true
		return 0
	}
	return int(n)
}

func (r *manifestReader) str() string {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *manifestReader) flag() bool {
	if len(r.b) == 0 || r.b[0] > 1 {
		r.bad = true
		return false
	}
	v := r.b[0] == 1
	r.b = r.b[1:]
	return v
}

// decodeManifest verifies and parses a manifest: one of an earlier
// version is errOldFormat, anything else that does not verify errDamaged.
func decodeManifest(b []byte) (*manifest, error) {
	if !bytes.HasPrefix(b, []byte(manifestMagic)) || len(b) < len(manifestMagic)+1+4 {
		return nil, fmt.Errorf("%s: not a manifest: %w", manifestName, errDamaged)
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, castagnoli()) != sum {
		return nil, fmt.Errorf("%s: checksum mismatch: %w", manifestName, errDamaged)
	}
	if v := int(body[len(manifestMagic)]); v != manifestVersion {
		if v < manifestVersion {
			return nil, errOldFormat
		}
		return nil, fmt.Errorf("%s: version %d: %w", manifestName, v, errDamaged)
	}
	r := &manifestReader{b: body[len(manifestMagic)+1:]}
	m := &manifest{Version: manifestVersion}
	m.Projects = make([]projectEntry, r.count(5))
	for i := range m.Projects {
		p := &m.Projects[i]
		p.Dir, p.Root = r.str(), r.str()
		p.Stamp = storage.Stamp{ModTime: r.varint(), Ino: r.uvarint()}
		p.Checked = r.varint()
		p.Dead = r.flag()
	}
	m.Files = make([]fileEntry, r.count(6))
	for i := range m.Files {
		f := &m.Files[i]
		f.Proj = int(r.uvarint())
		f.Session = r.str()
		f.Offset = int64(r.uvarint())
		f.ID = r.uvarint()
		f.MTime = r.varint()
		f.Dead = r.flag()
		if r.bad || f.Proj >= len(m.Projects) || f.Offset < 0 {
			return nil, fmt.Errorf("%s: bad file entry %d: %w", manifestName, i, errDamaged)
		}
		f.Project = m.Projects[f.Proj].Root
	}
	m.Segments = make([]segEntry, r.count(4))
	for i := range m.Segments {
		s := &m.Segments[i]
		s.Name = r.str()
		s.Docs, s.TotalDL, s.Size = int(r.uvarint()), r.uvarint(), int64(r.uvarint())
	}
	if r.bad || len(r.b) != 0 {
		return nil, fmt.Errorf("%s: %w", manifestName, errDamaged)
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", manifestName, err, errDamaged)
	}
	return m, nil
}

// check is what a manifest must hold to besides its checksum: each
// project is a directory right under projects/, each file named by a
// session id, each segment a file of this directory.
func (m *manifest) check() error {
	for _, p := range m.Projects {
		rest, ok := strings.CutPrefix(p.Dir, "projects"+string(filepath.Separator))
		if !ok || rest == "" || strings.ContainsRune(rest, filepath.Separator) || rest == ".." || rest == "." {
			return fmt.Errorf("bad project entry %q", p.Dir)
		}
	}
	for _, f := range m.Files {
		if f.Session == "" || strings.ContainsAny(f.Session, `/\.`) {
			return fmt.Errorf("bad file entry %q", f.Session)
		}
	}
	for _, s := range m.Segments {
		if filepath.Base(s.Name) != s.Name || !strings.HasSuffix(s.Name, ".seg") || s.Docs < 0 || s.Size < 0 {
			return fmt.Errorf("bad segment entry %q", s.Name)
		}
	}
	return nil
}
