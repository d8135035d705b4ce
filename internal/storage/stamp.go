package storage

import (
	"fmt"
	"os"
	"time"
)

// A project directory's modification time is its change stamp. The
// kernel moves it when a file is created in the directory, removed from
// it or renamed into or out of it; Append moves it after every write
// (touchProject). So a reader that noted a project's stamp, then read
// its session files, and later finds the same stamp knows that no
// session of that project was created, removed, replaced or appended to
// by clawdcode since: the search index checks a project this way instead
// of stat'ing every one of its session files for every search.
//
// What the stamp does not see: a program other than clawdcode writing
// into an existing session file in place (an append by `>>`, or a file
// overwritten without a rename). Such a change is seen once the project
// changes otherwise (any append by clawdcode, a new session); until then
// a reader relying on the stamp sees the file as it was — never a record
// where there is none, since whoever reads a record reads it from the
// file (the search index checks that a hit's line is where it says).
//
// Two changes within the file system's timestamp granularity can leave
// the same stamp: a stamp is trusted only once it is older than
// stampRacy when it is read (RacyStamp), as git trusts an index entry.

// Stamp is a project directory's change stamp.
type Stamp struct {
	ModTime int64  // nanoseconds since the epoch
	Ino     uint64 // the directory itself: a directory replaced is a change
}

// stampRacy is how old a stamp must be, when read, to be trusted: above
// the coarsest timestamp granularity of the file systems a home may be on
// (2 s on FAT; a jiffy on ext4).
const stampRacy = 2 * time.Second

// Racy reports whether the stamp, read at when, may not tell a later
// change from an earlier one, and so must not be trusted.
func (st Stamp) Racy(when time.Time) bool {
	return when.UnixNano()-st.ModTime < int64(stampRacy)
}

// Stamp reads the project's change stamp. Read it before reading the
// session files it is to vouch for.
func (p *Project) Stamp() (Stamp, error) {
	fi, err := os.Lstat(p.dir())
	if err != nil {
		return Stamp{}, fmt.Errorf("stamp of %s: %w", p.Root, err)
	}
	return Stamp{ModTime: fi.ModTime().UnixNano(), Ino: Inode(fi)}, nil
}

// touchProject moves the project directory's stamp after an append has
// written its bytes (never before: a reader that notes the stamp and then
// reads the file must see the bytes of every append whose touch it did
// not see). A failure is ignored: it costs a search's freshness for that
// append until the project changes again, and no append may fail for it.
func touchProject(dir string) {
	_ = os.Chtimes(dir, time.Time{}, time.Now())
}
