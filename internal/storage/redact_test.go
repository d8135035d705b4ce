package storage

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type replaceRedactor struct{ secret string }

func (r replaceRedactor) Redact(b []byte) []byte {
	return bytes.ReplaceAll(b, []byte(r.secret), []byte("[REDACTED]"))
}

// redactingSession is a new session of a store whose redactor replaces
// secret; it is closed at the test's end.
func redactingSession(t *testing.T, secret string) *Session {
	t.Helper()
	st := NewStore(filepath.Join(t.TempDir(), "home"))
	st.SetRedactor(replaceRedactor{secret})
	p, err := st.Project(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sess, err := p.Create(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

// TestAppendRedacts: every line is redacted at the one write point, the
// offsets returned are those of the lines as written, and the record the
// caller holds is what the file holds.
func TestAppendRedacts(t *testing.T) {
	t.Parallel()
	const secret = "sk-storage-test-0123456789abcdef"
	sess := redactingSession(t, secret)
	quoting := &Record{Type: TypeUser, Message: &Message{Role: "user", Content: "my key is " + secret + ", keep it"}}
	plain := &Record{Type: TypeAssistant, Message: &Message{Role: "assistant", Content: "noted"}}
	offs, err := sess.AppendBatch(quoting, plain)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(sess.Path())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), secret) || !strings.Contains(string(data), "my key is [REDACTED], keep it") {
		t.Fatalf("session file:\n%s", data)
	}
	if quoting.Message.Content != "my key is [REDACTED], keep it" {
		t.Errorf("the caller's record says %q, the file another thing", quoting.Message.Content)
	}
	if !bytes.HasPrefix(data[offs[1]:], []byte(`{"parentUuid":"`+quoting.UUID)) {
		t.Errorf("offset %d of the second record points at %q", offs[1], data[offs[1]:min(len(data), int(offs[1])+40)])
	}
}

// TestIndexLearnsFromRedactedRecords: the index entry (and the listing a
// later record carries) take the title from the record as stored, so a
// secret quoted in a first message or a title reaches neither index.json
// nor any line.
func TestIndexLearnsFromRedactedRecords(t *testing.T) {
	t.Parallel()
	const secret = "sk-storage-test-9876543210fedcba"
	st := NewStore(filepath.Join(t.TempDir(), "home"))
	st.SetRedactor(replaceRedactor{secret})
	p, err := st.Project(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sess, err := p.Create(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, sess, userRecord("deploy with "+secret))
	if err := sess.SaveTitle("title " + secret); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, sess, assistantRecord("ok", 1, 1))
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{sess.Path(), filepath.Join(p.Dir, indexName)} {
		if b, _ := os.ReadFile(name); strings.Contains(string(b), secret) {
			t.Errorf("%s holds the secret:\n%s", filepath.Base(name), b)
		}
	}
	if list, err := p.List(); err != nil || len(list) != 1 || list[0].Title != "title [REDACTED]" {
		t.Errorf("list = %+v, %v", list, err)
	}
}
