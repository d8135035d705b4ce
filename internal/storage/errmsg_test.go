package storage

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAppendWriteErrorNamesTheFileOnce: a failed write is the OS error
// itself — it names the session file (hence the session) — so the callers'
// "append user record: …" is not followed by a second "append to session".
func TestAppendWriteErrorNamesTheFileOnce(t *testing.T) {
	t.Parallel()
	s := mustCreate(t, newTestProject(t))
	defer s.Close()
	mustAppend(t, s, userRecord("first"))
	s.f.Close() // every later write(2) fails
	_, err := s.Append(userRecord("second"))
	if err == nil {
		t.Fatal("Append on a closed descriptor: no error")
	}
	msg := err.Error()
	if strings.Count(msg, s.Path()) != 1 || strings.Count(msg, s.ID()) != 1 || strings.Contains(msg, "append") {
		t.Errorf("error %q: want the file named once and no \"append\" (the caller says what it appended)", msg)
	}
	if _, err := s.AppendBatch(userRecord("third"), userRecord("fourth")); err == nil || strings.Count(err.Error(), s.ID()) != 1 {
		t.Errorf("AppendBatch error %v: want the file named once", err)
	}
}

// TestClaimErrorNamesThePathOnce: a project directory that cannot be
// claimed is "create session: claim project directory: <OS error naming
// the marker>", each part said once.
func TestClaimErrorNamesThePathOnce(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	// A directory where the marker goes: it cannot be read as one.
	if err := os.MkdirAll(filepath.Join(p.Dir, markerName), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := p.Create(context.Background())
	if err == nil {
		t.Fatal("Create with a directory as marker: no error")
	}
	msg := err.Error()
	for _, part := range []string{"create session", "claim", p.Dir} {
		if n := strings.Count(msg, part); n != 1 {
			t.Errorf("%q says %q %d times, want once", msg, part, n)
		}
	}
}
