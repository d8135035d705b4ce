package storage

import (
	"context"
	"os"
	"strings"
	"testing"
)

// The last progress mark is the last whole record's: a write cut short
// (torn, whether still last or closed by a later '\n') is no record even
// when its first bytes carry a mark, a record cut short of its '\n' only
// is one (Append keeps it), and records appended after the import (a
// user who continued the session) are walked past.
func TestLastImportPos(t *testing.T) {
	p := newTestProject(t)
	ctx := context.Background()
	s := mustCreate(t, p)
	id := s.ID()
	if pos, err := s.LastImportPos(); err != nil || pos != nil {
		t.Fatalf("empty session: %v, %v", pos, err)
	}
	for n := 1; n <= 3; n++ {
		mustAppend(t, s, &Record{Type: TypeUser, Message: &Message{Role: "user", Content: strings.Repeat("x", 20<<10)}, ImportPos: &ImportPos{From: 0, To: 99, N: n, End: n == 3}})
	}
	mustAppend(t, s, &Record{Type: TypeUser, Message: &Message{Role: "user", Content: `"importPos":{"from":5,"to":6,"n":7}`}})
	path := s.Path()
	s.Close()

	check := func(what string, want ImportPos) {
		t.Helper()
		s, err := p.Open(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		pos, err := s.LastImportPos()
		if err != nil || pos == nil || *pos != want {
			t.Fatalf("%s: got %+v, %v; want %+v", what, pos, err, want)
		}
	}
	check("after a user's record", ImportPos{To: 99, N: 3, End: true})

	// A batch cut short: its first record's head, mark included, is in
	// the file, its end is not.
	s2, err := p.Open(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s2, &Record{Type: TypeUser, Message: &Message{Role: "user", Content: "y"}, ImportPos: &ImportPos{From: 99, To: 200, N: 1}})
	s2.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	torn := `{"parentUuid":null,"uuid":"0b0e3c55-0000-4000-8000-000000000000","sessionId":"` + id + `","timestamp":"2026-01-01T00:00:00Z","type":"user","cwd":"/p","version":"1","listing":{"messages":9},"importPos":{"from":99,"to":200,"n":2},"message":{"role":"user","content":"cut he`
	if err := os.WriteFile(path, append(b, torn...), 0o600); err != nil {
		t.Fatal(err)
	}
	check("torn last line", ImportPos{From: 99, To: 200, N: 1})
	// The next append closes the torn line with a '\n' and is cut short
	// itself.
	if err := os.WriteFile(path, append(append(b, torn...), "\n{\"parentUuid\":"...), 0o600); err != nil {
		t.Fatal(err)
	}
	check("torn line closed by a later append", ImportPos{From: 99, To: 200, N: 1})
	// A kill between a record's last byte and its '\n': the record is
	// whole, and the next append closes its line.
	whole := strings.Replace(torn, `cut he`, `whole"}}`, 1)
	if err := os.WriteFile(path, append(b, whole...), 0o600); err != nil {
		t.Fatal(err)
	}
	check("whole last record without its newline", ImportPos{From: 99, To: 200, N: 2})
	s3, err := p.Open(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s3, &Record{Type: TypeUser, Message: &Message{Role: "user", Content: "z"}, ImportPos: &ImportPos{From: 99, To: 200, N: 3}})
	s3.Close()
	check("that record closed by a later append", ImportPos{From: 99, To: 200, N: 3})
	if got, err := os.ReadFile(path); err != nil || !strings.Contains(string(got), `whole"}}`+"\n{") {
		t.Errorf("the record without its newline is not kept as a line of its own: %v", err)
	}
}

// A session cut just before the '\n' of its import record (a kill in the
// middle of the import's first write) still names its origin: the record
// is whole, and its mark counts.
func TestImportOriginWithoutNewline(t *testing.T) {
	p := newTestProject(t)
	ctx := context.Background()
	s := mustCreate(t, p)
	id, path := s.ID(), s.Path()
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeImport, Import: &ImportInfo{Tool: "claude-code", Path: "/src/a.jsonl"}, ImportPos: &ImportPos{To: 99, N: 1}})
	s.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, fi.Size()-1); err != nil {
		t.Fatal(err)
	}
	s, err = p.Open(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if from, err := s.ImportOrigin(); err != nil || from == nil || from.Path != "/src/a.jsonl" {
		t.Errorf("origin: %+v, %v", from, err)
	}
	if pos, err := s.LastImportPos(); err != nil || pos == nil || *pos != (ImportPos{To: 99, N: 1}) {
		t.Errorf("mark: %+v, %v", pos, err)
	}
}
