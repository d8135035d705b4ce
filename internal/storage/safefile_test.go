package storage

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// warnings collects what a store reports through its warning hook.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) add(msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, msg)
}

func (w *warnings) all() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.msgs, "\n")
}

// TestSymlinkedSessionFileIsNotFollowed: a <uuid>.jsonl that is a symbolic
// link to a file outside CLAWDCODE_HOME is no session: it is skipped with a
// warning when listing, and resuming, showing, exporting or removing it
// fails without reading or appending to the file it names.
func TestSymlinkedSessionFileIsNotFollowed(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	var w warnings
	p.store.SetWarn(w.add)
	good := mustCreate(t, p)
	mustAppend(t, good, userRecord("real work"))
	good.Close()

	// The target is itself a valid session file of another project, so
	// only the refusal to follow the link keeps it out.
	other := newTestProject(t)
	src := mustCreate(t, other)
	mustAppend(t, src, userRecord("outside"))
	src.Close()
	target := sessionPath(other, src.ID())
	before, _ := os.ReadFile(target)

	const id = "11111111-2222-4333-8444-555555555555"
	link := sessionPath(p, id)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(p.Dir, indexName))

	list, err := p.List()
	if err != nil || len(list) != 1 || list[0].ID != good.ID() {
		t.Fatalf("List = %+v, %v; want only %s", list, err, good.ID())
	}
	if !strings.Contains(w.all(), link) || !strings.Contains(w.all(), "symbolic link") {
		t.Errorf("List did not warn about the symlink: %q", w.all())
	}
	if _, err := p.Resolve(id); !errors.Is(err, ErrNotFound) {
		t.Errorf("Resolve(symlinked id) = %v, want ErrNotFound", err)
	}
	ctx := context.Background()
	if s, err := p.Open(ctx, id); !errors.Is(err, ErrNotRegular) {
		if s != nil {
			s.Append(userRecord("appended through the link"))
			s.Close()
		}
		t.Errorf("Open(symlinked id) = %v, want ErrNotRegular", err)
	}
	if _, err := LoadLive(ctx, link); !errors.Is(err, ErrNotRegular) {
		t.Errorf("LoadLive(symlink) = %v, want ErrNotRegular", err)
	}
	if err := ReadAll(ctx, link, func(int64, *Record) error { return nil }, nil); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadAll(symlink) = %v, want ErrNotRegular", err)
	}
	if err := p.Remove(id); err == nil {
		t.Errorf("Remove(symlinked id) succeeded")
	}
	if after, _ := os.ReadFile(target); !bytes.Equal(after, before) {
		t.Errorf("the file the symlink names changed:\n%s", after)
	}
}

// TestSymlinkedIndexAndLockAreNotFollowed: index.json and index.lock that
// are symbolic links to files outside the store are neither written
// through nor chmodded; the listing still works from the session files.
func TestSymlinkedIndexAndLockAreNotFollowed(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	mustAppend(t, s, userRecord("work"))
	s.Close()
	outside := t.TempDir()
	for _, name := range []string{indexName, indexLock} {
		target := filepath.Join(outside, name)
		if err := os.WriteFile(target, []byte("precious"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(p.Dir, name))
		if err := os.Symlink(target, filepath.Join(p.Dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	s2 := mustCreate(t, p)
	mustAppend(t, s2, userRecord("more work"))
	s2.Close()
	if list, err := p.List(); err != nil || len(list) != 2 {
		t.Fatalf("List = %+v, %v; want both sessions", list, err)
	}
	for _, name := range []string{indexName, indexLock} {
		target := filepath.Join(outside, name)
		b, _ := os.ReadFile(target)
		fi, _ := os.Stat(target)
		if string(b) != "precious" || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s behind the symlink changed: %q %v", name, b, fi.Mode())
		}
	}
}

// TestFIFOSessionFileDoesNotHang: a named pipe under a session's name is
// skipped by List and refused by Open and LoadLive, at once.
func TestFIFOSessionFileDoesNotHang(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	mustAppend(t, s, userRecord("work"))
	s.Close()
	const id = "22222222-2222-4333-8444-555555555555"
	if err := syscall.Mkfifo(sessionPath(p, id), 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if list, err := p.List(); err != nil || len(list) != 1 {
			t.Errorf("List = %+v, %v", list, err)
		}
		if _, err := p.Open(context.Background(), id); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Open(fifo) = %v, want ErrNotRegular", err)
		}
		if _, err := LoadLive(context.Background(), sessionPath(p, id)); !errors.Is(err, ErrNotRegular) {
			t.Errorf("LoadLive(fifo) = %v, want ErrNotRegular", err)
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute): // a safety net: a FIFO blocks for ever
		t.Fatal("a FIFO named like a session blocked the store")
	}
}

// TestFailedCreationLeavesNothing: a session created and closed without a
// byte written (its first append failed) leaves no file behind.
func TestFailedCreationLeavesNothing(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	path := s.Path()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an empty session file was left behind: %v", err)
	}
}

// TestFailedAppendLeavesFileAsItWas: an append cut short by a full disk
// (here a file size limit, in a child process) takes its partial line back
// out: the file is byte for byte what it was, so no later load warns.
func TestFailedAppendLeavesFileAsItWas(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	mustAppend(t, s, userRecord("kept"))
	mustAppend(t, s, assistantRecord("kept too", 10, 2))
	s.Close()
	path := sessionPath(p, s.ID())
	before, _ := os.ReadFile(path)
	out, err := helper(t, p, "fsize", s.ID(), len(before)+1000).CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(after, before) {
		t.Fatalf("the failed append left %d bytes behind:\n%q", len(after)-len(before), after[len(before):])
	}
	live, err := LoadLive(context.Background(), path)
	if err != nil || len(live.Warnings) > 0 || len(live.Records) != 2 {
		t.Fatalf("LoadLive after the failed append: %v, %d records, warnings %q", err, len(live.Records), live.Warnings)
	}
	s2, err := p.Open(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s2, userRecord("next"))
	s2.Close()
	recs, _, warns := readAll(t, path)
	if len(recs) != 3 || len(warns) > 0 || *recs[2].ParentUUID != recs[1].UUID {
		t.Fatalf("after the next append: %d records, warnings %q", len(recs), warns)
	}
}

// TestRemovedSessionIsOneClearError: a session removed between being
// chosen (-c, a listing) and being opened is ErrNotFound naming the
// session, in one line without the raw path and OS text
// ("open …/<id>.jsonl: no such file or directory").
func TestRemovedSessionIsOneClearError(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	mustAppend(t, s, userRecord("soon gone"))
	s.Close()
	path := sessionPath(p, s.ID())
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, openErr := p.Open(ctx, s.ID())
	_, loadErr := LoadLive(ctx, path)
	readErr := ReadAll(ctx, path, func(int64, *Record) error { return nil }, nil)
	for name, err := range map[string]error{"Open": openErr, "LoadLive": loadErr, "ReadAll": readErr, "Remove": p.Remove(s.ID())} {
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), s.ID()) ||
			strings.Contains(err.Error(), p.Dir) || strings.Contains(err.Error(), "no such file") {
			t.Errorf("%s of a removed session = %v; want ErrNotFound naming the session, without the path", name, err)
		}
	}
}
