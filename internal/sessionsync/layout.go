package sessionsync

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// The objects under the store's prefix (see the package doc, Layout).
const (
	manifestKey = "clawdcode-sync.json"
	headsDir    = "heads/"
	segmentsDir = "segments/"
	// format is the layout's version; an object of a later one is refused.
	format = 1
)

// manifest is the store's one object in clear besides segment names: the
// layout's format, whether objects are encrypted and how the key is
// derived, and the key check.
type manifest struct {
	Format    int        `json:"format"`
	Encrypted bool       `json:"encrypted"`
	KDF       *kdfParams `json:"kdf,omitempty"`
	Check     []byte     `json:"check,omitempty"`
}

// head is a session's small object: where its bytes are (segments, in
// order, from offset 0 to Size) and what `sessions list --remote` shows.
// It is replaced only with If-Match on the ETag it was read with.
type head struct {
	Format   int       `json:"format"`
	Session  string    `json:"session"`
	Project  string    `json:"project"`
	Size     int64     `json:"size"`
	Title    string    `json:"title,omitempty"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
	Messages int       `json:"messages"`
	Parent   string    `json:"parent,omitempty"`
	Segments []segment `json:"segments"`
}

// segment is an immutable object holding the bytes [Start, End) of the
// session file: whole lines, under the SHA-256 of those bytes (before
// encryption).
type segment struct {
	Key    string `json:"key"`
	Start  int64  `json:"start"`
	End    int64  `json:"end"`
	SHA256 string `json:"sha256"`
	// Merged marks a segment made by merging the ones before a
	// compaction boundary; segments after the last merged one are the
	// candidates of the next merge.
	Merged bool `json:"merged,omitempty"`
}

// sessionName is the name of a session's objects: its id in clear, or a
// keyed hash of it.
func sessionName(k *keyed, id string) string {
	if k == nil {
		return id
	}
	return k.tag([]byte("session\x00"+id), 32)
}

func headKey(sname string) string { return headsDir + sname }

// segmentKey names the segment [start, end) with the given SHA-256: the
// same bytes get the same name, so a push that a kill cut short and its
// retry write one object, and two machines can never overwrite each
// other's different bytes.
func segmentKey(k *keyed, sname string, start, end int64, sum []byte) string {
	tag := hex.EncodeToString(sum)[:16]
	if k != nil {
		tag = k.tag(sum, 16)
	}
	return fmt.Sprintf("%s%s/%016x-%016x-%s", segmentsDir, sname, start, end, tag)
}

// newSegment describes data, the bytes at start of a session named sname.
func newSegment(k *keyed, sname string, start int64, data []byte) segment {
	sum := sha256.Sum256(data)
	end := start + int64(len(data))
	return segment{Key: segmentKey(k, sname, start, end, sum[:]), Start: start, End: end, SHA256: hex.EncodeToString(sum[:])}
}

// check holds h, read from the object of sname, to what this layout
// writes, so that a damaged or hostile head (a teammate's prefix) cannot
// name another session, a path that is not absolute, or bytes that do not
// line up.
func (h *head) check(k *keyed, sname string) error {
	switch {
	case h.Format != format:
		return fmt.Errorf("format %d (this clawdcode reads %d)", h.Format, format)
	case sessionName(k, h.Session) != sname || !validID(h.Session):
		return fmt.Errorf("it names session %q", h.Session)
	case !filepath.IsAbs(h.Project) || filepath.Clean(h.Project) != h.Project:
		return fmt.Errorf("its project %q is not a clean absolute path", h.Project)
	}
	at := int64(0)
	for _, s := range h.Segments {
		if s.Start != at || s.End <= s.Start || !strings.HasPrefix(s.Key, segmentsDir+sname+"/") || len(s.SHA256) != 64 {
			return fmt.Errorf("its segment %q does not follow on at %d", s.Key, at)
		}
		sum, err := hex.DecodeString(s.SHA256)
		if err != nil || s.Key != segmentKey(k, sname, s.Start, s.End, sum) {
			return fmt.Errorf("its segment %q is not named by its hash", s.Key)
		}
		at = s.End
	}
	if at != h.Size {
		return fmt.Errorf("its segments end at %d, not at its size %d", at, h.Size)
	}
	return nil
}

// validID is what a session id may be: the characters storage accepts in
// a file name, and a length no real id exceeds.
func validID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// encode is the object's bytes: JSON, sealed under the key when there is one.
func encode(k *keyed, name string, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if k == nil {
		return b, nil
	}
	return k.seal(name, b)
}

// decode is encode's inverse; an encrypted object without the key is
// errNeedKey.
func decode(k *keyed, name string, b []byte, v any) error {
	if isSealed(b) {
		if k == nil {
			return errNeedKey
		}
		plain, err := k.open(name, b)
		if err != nil {
			return err
		}
		b = plain
	} else if k != nil {
		return errNotSealed
	}
	return json.Unmarshal(b, v)
}
