package storage

import (
	"bytes"
	"encoding/json"
)

// Redactor takes secrets out of bytes about to be written; it returns b
// itself when b holds none. *secrets.Redactor is one.
type Redactor interface {
	Redact(b []byte) []byte
}

// SetRedactor makes every session line the store writes pass through r
// first: the one point where what clawdcode stores is kept free of the API
// key and other credentials, whatever record carries them (a tool's
// output, a reply, a fallback summary quoting a server's error). Call it
// before the store is used; nil writes records as they are.
func (s *Store) SetRedactor(r Redactor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.redactor = r
}

func (s *Store) currentRedactor() Redactor {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.redactor
}

// redactLine redacts the encoded line of r that starts at start in buf.
// When a secret was found, r is decoded again from the redacted line, so
// that what the session remembers of it (a title for the index) is what
// the file holds.
func redactLine(red Redactor, buf *bytes.Buffer, start int, r *Record) {
	line := buf.Bytes()[start:]
	clean := red.Redact(line)
	if bytes.Equal(clean, line) {
		return
	}
	clean = bytes.Clone(clean) // it may share memory with buf, rewritten next
	buf.Truncate(start)
	buf.Write(clean)
	var back Record
	if json.Unmarshal(clean, &back) == nil {
		*r = back
	}
}

// redactString is red's Redact for a string; a nil red changes nothing.
func redactString(red Redactor, s string) string {
	if red == nil {
		return s
	}
	return string(red.Redact([]byte(s)))
}
