package storage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// session writes a closed session with the given user messages, each
// answered once, at increasing timestamps from base.
func writeSession(t testing.TB, p *Project, base time.Time, msgs ...string) string {
	t.Helper()
	s := mustCreate(t, p)
	for i, m := range msgs {
		u := userRecord(m)
		u.Timestamp = base.Add(time.Duration(2*i) * time.Second)
		mustAppend(t, s, u)
		a := assistantRecord("answer", 100+i, 10)
		a.Timestamp = base.Add(time.Duration(2*i+1) * time.Second)
		mustAppend(t, s, a)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s.ID()
}

func TestListFromIndex(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	older := writeSession(t, p, t0, "first question\nwith two lines", "second")
	newer := writeSession(t, p, t0.Add(time.Hour), strings.Repeat("long title words ", 10))

	list, err := p.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != newer || list[1].ID != older {
		t.Fatalf("list order %+v", list)
	}
	o := list[1]
	if o.Title != "first question" || o.Messages != 4 || o.Tokens != 111 ||
		!o.Created.Equal(t0) || !o.Updated.Equal(t0.Add(3*time.Second)) || o.Project != p.Root || o.Size == 0 {
		t.Errorf("older = %+v", o)
	}
	if n := len([]rune(list[0].Title)); n > titleRunes || !strings.HasSuffix(list[0].Title, "…") {
		t.Errorf("long title %q (%d runes)", list[0].Title, n)
	}
	if id, err := p.Latest(); err != nil || id != newer {
		t.Errorf("Latest = %s, %v; want %s", id, err, newer)
	}

	// A fresh index is trusted: List does not parse the files. Swap a
	// file's bytes for garbage of the same size and mtime; List must not
	// notice.
	path := p.Path(older)
	fi, _ := os.Stat(path)
	if err := os.WriteFile(path, []byte(strings.Repeat("?", int(fi.Size()))), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(path, fi.ModTime(), fi.ModTime())
	again, err := p.List()
	if err != nil || again[1].Messages != 4 {
		t.Fatalf("List with a fresh index reparsed a file: %+v, %v", again, err)
	}
}

func TestIndexRebuilt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		spoil func(t *testing.T, p *Project, ids []string)
	}{
		{"deleted", func(t *testing.T, p *Project, _ []string) {
			os.Remove(filepath.Join(p.Dir, indexName))
		}},
		{"corrupt", func(t *testing.T, p *Project, _ []string) {
			os.WriteFile(filepath.Join(p.Dir, indexName), []byte(`{"version":1,"sessions":[{"id":`), 0o600)
		}},
		{"truncated to nothing", func(t *testing.T, p *Project, _ []string) {
			os.WriteFile(filepath.Join(p.Dir, indexName), nil, 0o600)
		}},
		{"stale: an entry lies", func(t *testing.T, p *Project, ids []string) {
			m := readIndexRedacted(p.Dir, nil)
			m[ids[0]].Messages = 99
			m[ids[0]].ModTime++
			writeIndexRedacted(p.Dir, m, nil)
		}},
		{"entry missing", func(t *testing.T, p *Project, ids []string) {
			m := readIndexRedacted(p.Dir, nil)
			delete(m, ids[1])
			writeIndexRedacted(p.Dir, m, nil)
		}},
		{"entry without a file", func(t *testing.T, p *Project, ids []string) {
			m := readIndexRedacted(p.Dir, nil)
			m["0000"] = &indexEntry{SessionInfo: SessionInfo{ID: "0000"}}
			writeIndexRedacted(p.Dir, m, nil)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newTestProject(t)
			t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
			ids := []string{writeSession(t, p, t0, "a", "b"), writeSession(t, p, t0.Add(time.Minute), "c")}
			want, err := p.List()
			if err != nil {
				t.Fatal(err)
			}
			tt.spoil(t, p, ids)
			got, err := p.List()
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("after the index was %s:\n got %+v\nwant %+v", tt.name, got, want)
			}
			// And the rebuilt index was written back.
			m := readIndexRedacted(p.Dir, nil)
			if len(m) != 2 || m[ids[0]].Messages != 4 {
				t.Fatalf("index not rewritten: %+v", m)
			}
		})
	}
}

func TestIndexGrowsIncrementally(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	id := writeSession(t, p, t0, "a")
	if _, err := p.List(); err != nil {
		t.Fatal(err)
	}
	// Only whole new lines count; bytes before the indexed size are not
	// read again (make them unparseable to prove it).
	path := p.Path(id)
	m := readIndexRedacted(p.Dir, nil)
	scanned := m[id].Scanned
	b, _ := os.ReadFile(path)
	copy(b, strings.Repeat("#", 20))
	os.WriteFile(path, b, 0o600)
	os.Chtimes(path, time.Unix(0, m[id].ModTime), time.Unix(0, m[id].ModTime))
	appendRaw(t, path, `{"type":"user","timestamp":"2026-05-02T00:00:00Z","message":{"role":"user","content":"later"}}`+"\n"+`{"type":"assis`)

	list, err := p.List()
	if err != nil {
		t.Fatal(err)
	}
	if list[0].Messages != 3 || !list[0].Updated.Equal(time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC)) || list[0].Title != "a" {
		t.Fatalf("incremental refresh: %+v", list[0])
	}
	if m := readIndexRedacted(p.Dir, nil); m[id].Scanned <= scanned || m[id].Scanned >= list[0].Size {
		t.Fatalf("scanned %d of %d bytes (was %d): the torn tail must wait", m[id].Scanned, list[0].Size, scanned)
	}
	// The torn tail completes: it is counted then.
	appendRaw(t, path, `tant","message":{"role":"assistant","content":"x"}}`+"\n")
	if list, _ := p.List(); list[0].Messages != 4 {
		t.Fatalf("completed line not counted: %+v", list[0])
	}
}

func TestSetTitleAndTokens(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	mustAppend(t, s, userRecord("what the user said"))
	s.SetTitle("  My\ttitle  ")
	s.SetTokens(4242)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	list, _ := p.List()
	if list[0].Title != "My title" || list[0].Tokens != 4242 {
		t.Fatalf("after SetTitle/SetTokens: %+v", list[0])
	}
	// The file grows elsewhere; the refresh keeps the chosen title.
	appendRaw(t, s.Path(), `{"type":"user","message":{"role":"user","content":"more"}}`+"\n")
	list, _ = p.List()
	if list[0].Title != "My title" || list[0].Messages != 2 {
		t.Fatalf("after growth: %+v", list[0])
	}
	// Reopen: the entry carries on from the index.
	s2, err := p.Open(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s2, assistantRecord("ok", 10, 5))
	s2.Close()
	list, _ = p.List()
	if list[0].Title != "My title" || list[0].Messages != 3 || list[0].Tokens != 15 {
		t.Fatalf("after reopen: %+v", list[0])
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	mk := func(id string) {
		if err := mkdirPrivate(p.Dir); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p.Dir, id+".jsonl"), []byte(`{"type":"user","message":{"content":"`+id+`"}}`+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"abc111", "abc222", "def333"} {
		mk(id)
	}
	tests := []struct {
		in, want string
		err      error
	}{
		{"def", "def333", nil},
		{"abc111", "abc111", nil},
		{"abc2", "abc222", nil},
		{"zzz", "", ErrNotFound},
		{"../x", "", ErrInvalidID},
		{"a/b", "", ErrInvalidID},
		{"", "", ErrInvalidID},
	}
	for _, tt := range tests {
		got, err := p.Resolve(tt.in)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("Resolve(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
	_, err := p.Resolve("abc")
	var amb *AmbiguousIDError
	if !errors.As(err, &amb) || len(amb.Candidates) != 2 || amb.Candidates[0].Title == "" {
		t.Fatalf("Resolve(abc) = %v, want ambiguity with titled candidates", err)
	}
	if !strings.Contains(err.Error(), "abc111") || !strings.Contains(err.Error(), "abc222") {
		t.Errorf("ambiguity error %q does not list the candidates", err)
	}
}

func TestRemoveUpdatesIndex(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	t0 := time.Now()
	a := writeSession(t, p, t0, "a")
	b := writeSession(t, p, t0.Add(time.Second), "b")
	if err := p.Remove(a); err != nil {
		t.Fatal(err)
	}
	if m := readIndexRedacted(p.Dir, nil); len(m) != 1 || m[b] == nil {
		t.Fatalf("index after Remove: %+v", m)
	}
	if list, _ := p.List(); len(list) != 1 || list[0].ID != b {
		t.Fatalf("List after Remove: %+v", list)
	}
}

// A title the user chose is in the file, so it survives the loss of the
// index; the last title record wins over the first message and over
// earlier titles, and the record does not count as a message.
func TestSavedTitleSurvivesIndexRebuild(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	if err := s.SaveTitle("first name"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, userRecord("what the user said"))
	mustAppend(t, s, assistantRecord("ok", 10, 5))
	if err := s.SaveTitle("  Refactor\tthe parser  "); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, damage := range []string{"removed", "corrupt"} {
		switch damage {
		case "removed":
			if err := os.Remove(filepath.Join(p.Dir, indexName)); err != nil {
				t.Fatal(err)
			}
		case "corrupt":
			if err := os.WriteFile(filepath.Join(p.Dir, indexName), []byte("{"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		list, err := p.List()
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 || list[0].Title != "Refactor the parser" || list[0].Messages != 2 {
			t.Fatalf("index %s, rebuilt: %+v", damage, list)
		}
	}
	// The record is an ordinary line of the session: the live context
	// loads with it, without warnings.
	live, err := LoadLive(context.Background(), s.Path())
	if err != nil || len(live.Warnings) != 0 || len(live.Records) != 4 {
		t.Fatalf("LoadLive: %v, %+v", err, live)
	}
	if r := live.Records[3].Record; r.Type != TypeTitle || r.Title != "  Refactor\tthe parser  " {
		t.Fatalf("title record read back as %+v", r)
	}
	// An untitled session still takes its title from its first message.
	u := mustCreate(t, p)
	if err := u.SaveTitle("  "); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, u, userRecord("fix the build"))
	u.Close()
	os.Remove(filepath.Join(p.Dir, indexName))
	list, _ := p.List()
	for _, si := range list {
		if si.ID == u.ID() && si.Title != "fix the build" {
			t.Fatalf("untitled session: %+v", si)
		}
	}
}

// A crash between creating the index's temporary file and renaming it
// leaves the file behind; the next index write removes it once it is
// clearly abandoned, and leaves a fresh one (another writer's) alone.
func TestIndexWriteRemovesStaleTempFiles(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	mustAppend(t, s, userRecord("hello"))
	stale := filepath.Join(p.Dir, indexName+".tmp-1234567")
	fresh := filepath.Join(p.Dir, indexName+".tmp-7654321")
	other := filepath.Join(p.Dir, "notes.tmp-1")
	old := time.Now().Add(-2 * time.Minute)
	for _, f := range []string{stale, fresh, other} {
		if err := os.WriteFile(f, []byte(`{"version":1,"sess`), 0o600); err != nil {
			t.Fatal(err)
		}
		if f != fresh {
			if err := os.Chtimes(f, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stale temp file still there after an index write: %v", err)
	}
	for _, f := range []string{fresh, other} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(f), err)
		}
	}
	if list, err := p.List(); err != nil || len(list) != 1 {
		t.Fatalf("list = %+v, %v", list, err)
	}
}

// A session file with nothing in it to resume — created and never written
// (a crash right after Create, or another process about to write), or
// holding no message — is neither listed nor what Latest picks, even when
// it is the newest; its full id still resolves.
func TestListAndLatestSkipSessionsWithoutMessages(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	good := mustCreate(t, p)
	mustAppend(t, good, userRecord("real work"))
	mustAppend(t, good, assistantRecord("done", 10, 2))
	if err := good.Close(); err != nil {
		t.Fatal(err)
	}

	// A crash right after Create leaves an empty file (a Close would
	// remove it: see TestFailedCreationLeavesNothing).
	crashed := mustCreate(t, p)
	if err := os.WriteFile(filepath.Join(p.Dir, "0e0e0e0e-0000-4000-8000-000000000000.jsonl"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	crashed.Close()
	crashed = &Session{id: "0e0e0e0e-0000-4000-8000-000000000000"}
	titled := mustCreate(t, p) // a title, then the first message failed
	if err := titled.SaveTitle("never used"); err != nil {
		t.Fatal(err)
	}
	titled.Close()
	open := mustCreate(t, p) // another writer's, still before its first Append
	defer open.Close()
	if err := os.Remove(filepath.Join(p.Dir, indexName)); err != nil {
		t.Fatal(err)
	}

	for round := range 2 { // rebuilt from the files, then from the index
		list, err := p.List()
		if err != nil || len(list) != 1 || list[0].ID != good.ID() {
			t.Fatalf("round %d: list = %+v, %v; want only %s", round, list, err, good.ID())
		}
		if id, err := p.Latest(); err != nil || id != good.ID() {
			t.Fatalf("round %d: Latest = %q, %v; want %s", round, id, err, good.ID())
		}
	}
	if id, err := p.Resolve(crashed.ID()); err != nil || id != crashed.ID() {
		t.Fatalf("Resolve(full id of the empty session) = %q, %v", id, err)
	}
}

// Infos says of named sessions what List says of them, from the index
// entries of those sessions alone: a title set in the index only (not in
// the file), one with quotes and escapes, a session without a message
// (left out, as List leaves it) and one with no file.
func TestInfosIsListForTheSessionsNamed(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	var ids []string
	for i, title := range []string{"", `quoted "title" \ with <html> & é`, "set in the index"} {
		s := mustCreate(t, p)
		mustAppend(t, s, userRecord(fmt.Sprintf("question %d", i)))
		mustAppend(t, s, assistantRecord("answer", 10*i, 1))
		if title != "" {
			s.SetTitle(title)
		}
		s.Close()
		ids = append(ids, s.ID())
	}
	empty := mustCreate(t, p) // created, never written a message
	mustAppend(t, empty, &Record{Type: TypeSystem, Subtype: SubtypePin, Pin: &Pin{ID: 1, Text: "x"}})
	empty.Close()
	list, err := p.List()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]SessionInfo{}
	for _, s := range list {
		if s.ID != ids[0] {
			want[s.ID] = s
		}
	}
	got, err := p.Infos([]string{ids[1], ids[2], empty.ID(), "0000dead-0000-4000-8000-000000000000", ids[2]})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Infos = %+v\nList says %+v", got, want)
	}
}
