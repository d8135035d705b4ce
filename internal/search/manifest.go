package search

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"strings"
)

// errOldFormat is an index written by an earlier clawdcode: it is
// rebuilt, and that is no damage.
var errOldFormat = errors.New("search index of an older format")

// The manifest on disk is its JSON, a newline, and a trailer line with
// the CRC-32C of everything before it:
//
//	{"version":2,"files":[...],"segments":[...]}
//	crc32c=1a2b3c4d
const crcPrefix = "crc32c="

func encodeManifest(m *manifest) ([]byte, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	b = append(b, '\n')
	return fmt.Appendf(b, "%s%08x\n", crcPrefix, crc32.Checksum(b, castagnoli)), nil
}

// decodeManifest verifies and parses a manifest. One without a trailer
// that parses as an earlier version is errOldFormat; anything else that
// does not verify is errDamaged.
func decodeManifest(b []byte) (*manifest, error) {
	body, sum, ok := splitTrailer(b)
	if !ok {
		var old struct {
			Version int `json:"version"`
		}
		if json.Unmarshal(b, &old) == nil && old.Version >= 1 && old.Version < manifestVersion {
			return nil, errOldFormat
		}
		return nil, fmt.Errorf("%s: no checksum: %w", manifestName, errDamaged)
	}
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, fmt.Errorf("%s: checksum mismatch: %w", manifestName, errDamaged)
	}
	var m manifest
	if err := json.Unmarshal(body, &m); err != nil || m.Version != manifestVersion {
		return nil, fmt.Errorf("%s: %w", manifestName, errDamaged)
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", manifestName, err, errDamaged)
	}
	return &m, nil
}

func splitTrailer(b []byte) (body []byte, sum uint32, ok bool) {
	if len(b) == 0 || b[len(b)-1] != '\n' {
		return nil, 0, false
	}
	i := bytes.LastIndexByte(b[:len(b)-1], '\n')
	if i < 0 {
		return nil, 0, false
	}
	tr := string(b[i+1 : len(b)-1])
	if !strings.HasPrefix(tr, crcPrefix) || len(tr) != len(crcPrefix)+8 {
		return nil, 0, false
	}
	if _, err := fmt.Sscanf(tr[len(crcPrefix):], "%08x", &sum); err != nil {
		return nil, 0, false
	}
	return b[:i+1], sum, true
}

// check is what a manifest must hold to besides its checksum: each file
// entry names a session file under projects/ by its own session id, and
// each segment a file of this directory.
func (m *manifest) check() error {
	for _, f := range m.Files {
		name := filepath.Base(f.Path)
		if f.Offset < 0 || !strings.HasPrefix(f.Path, "projects"+string(filepath.Separator)) ||
			!strings.HasSuffix(name, ".jsonl") || strings.TrimSuffix(name, ".jsonl") != f.Session {
			return fmt.Errorf("bad file entry %q", f.Path)
		}
	}
	for _, s := range m.Segments {
		if filepath.Base(s.Name) != s.Name || !strings.HasSuffix(s.Name, ".seg") || s.Docs < 0 || s.Size < 0 {
			return fmt.Errorf("bad segment entry %q", s.Name)
		}
	}
	return nil
}
