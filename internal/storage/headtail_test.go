package storage

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var regexpListing = regexp.MustCompile(`,"listing":\{[^}]*\}`)

// listCold lists p with index.json removed.
func listCold(t *testing.T, p *Project) []SessionInfo {
	t.Helper()
	if err := os.Remove(filepath.Join(p.Dir, indexName)); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	list, err := p.List()
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// TestColdListReadsHeadAndTailOnly: without index.json a listing takes a
// session's figures from its head and last line. The proof: the middle of
// the file is overwritten with garbage and the listing does not change
// (a scan of every line would count fewer messages).
func TestColdListReadsHeadAndTailOnly(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	mustAppend(t, s, userRecord("Fix the parser\nplease"))
	for i := range 20 {
		mustAppend(t, s, assistantRecord(strings.Repeat("answer ", 50+i), 100+i, 10))
		mustAppend(t, s, userRecord("more"))
	}
	mustAppend(t, s, assistantRecord("done", 500, 7))
	s.Close()
	want := listCold(t, p)
	if len(want) != 1 || want[0].Messages != 42 || want[0].Tokens != 507 || want[0].Title != "Fix the parser" {
		t.Fatalf("cold list = %+v", want)
	}

	path := sessionPath(p, s.ID())
	b, _ := os.ReadFile(path)
	lines := bytes.SplitAfter(b, []byte("\n"))
	for i := 3; i < len(lines)-3; i++ {
		lines[i] = append(bytes.Repeat([]byte("x"), len(lines[i])-1), '\n')
	}
	if err := os.WriteFile(path, bytes.Join(lines, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	got := listCold(t, p)
	if len(got) != 1 || got[0].Messages != want[0].Messages || got[0].Tokens != want[0].Tokens ||
		got[0].Title != want[0].Title || !got[0].Created.Equal(want[0].Created) || !got[0].Updated.Equal(want[0].Updated) {
		t.Errorf("cold list after the middle changed = %+v, want %+v", got, want)
	}
}

// TestColdListTitles: a title record's title is carried to the last line;
// without one, the title is the first user message's, even when that
// message is far longer than what the head read looks at.
func TestColdListTitles(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	titled := mustCreate(t, p)
	mustAppend(t, titled, userRecord("first question"))
	if err := titled.SaveTitle("Parser rewrite"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, titled, assistantRecord("ok", 10, 2))
	titled.Close()
	huge := mustCreate(t, p)
	mustAppend(t, huge, userRecord("Explain \"this\" dump\n"+strings.Repeat("0123456789\\\n", 1<<16)))
	mustAppend(t, huge, assistantRecord("It is digits.", 10, 2))
	huge.Close()
	got := map[string]string{}
	for _, s := range listCold(t, p) {
		got[s.ID] = s.Title
	}
	if got[titled.ID()] != "Parser rewrite" || got[huge.ID()] != `Explain "this" dump` {
		t.Errorf("titles = %q", got)
	}
}

// TestColdListOfOlderFiles: a file whose records carry no listing (written
// before it existed, or by another program) is read whole, as before; a
// torn last line is passed over.
func TestColdListOfOlderFiles(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	mustAppend(t, s, userRecord("old style"))
	mustAppend(t, s, assistantRecord("yes", 10, 2))
	s.Close()
	path := sessionPath(p, s.ID())
	b, _ := os.ReadFile(path)
	old := regexpListing.ReplaceAll(b, nil)
	if bytes.Equal(old, b) {
		t.Fatal("no listing to remove")
	}
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := listCold(t, p); len(got) != 1 || got[0].Messages != 2 || got[0].Title != "old style" {
		t.Errorf("cold list of an older file = %+v", got)
	}
	if err := os.WriteFile(path, append(b, `{"parentUuid":"x","uuid":"torn","listing":{"messages":99`...), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := listCold(t, p); len(got) != 1 || got[0].Messages != 2 {
		t.Errorf("cold list with a torn last line = %+v", got)
	}
}

// A last line not in clawdcode's own spelling is not judged by its bytes,
// even when they hold what looks like a listing (here keys in another
// order, compact, the listing's right after the version): the file is read
// whole and its messages counted, not the 99 its tail claims. Only the
// line's own head tells, so the file's other lines cost nothing to know it.
func TestColdListDoesNotTrustAForeignTail(t *testing.T) {
	t.Parallel()
	p := newTestProject(t)
	s := mustCreate(t, p)
	mustAppend(t, s, userRecord("quince"))
	mustAppend(t, s, assistantRecord("fragrant", 10, 2))
	s.Close()
	foreign := `{"type":"user","uuid":"f1","parentUuid":null,"sessionId":"` + s.ID() +
		`","timestamp":"2026-11-21T10:00:00Z","cwd":"/x","version":"1","listing":{"messages":99},"message":{"role":"user","content":"medlar"}}` + "\n"
	f, err := os.OpenFile(sessionPath(p, s.ID()), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(foreign)
	f.Close()
	if got := listCold(t, p); len(got) != 1 || got[0].Messages != 3 {
		t.Errorf("cold list of a file with a foreign last line = %+v, want 3 messages", got)
	}
}
