package search

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// bruteForce answers a query by reading every whole line of every
// session file, with encoding/json and the tokenizer: the hits' session
// and uuid, sorted.
func bruteForce(t *testing.T, store *storage.Store, cs []clause) []string {
	t.Helper()
	projects, err := store.Projects()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range projects {
		paths, _ := filepath.Glob(filepath.Join(p.Dir, "*.jsonl"))
		for _, path := range paths {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b = b[:bytes.LastIndexByte(b, '\n')+1] // whole lines only
			for _, raw := range bytes.Split(b, []byte("\n")) {
				var l line
				var rec storage.Record
				if json.Unmarshal(raw, &l) != nil || json.Unmarshal(raw, &rec) != nil || !searchable(l.Type) {
					continue
				}
				if holdsAll(terms(string(appendText(nil, &l))), cs) {
					out = append(out, strings.TrimSuffix(filepath.Base(path), ".jsonl")+" "+rec.UUID)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// holdsAll reports whether toks holds every clause's terms, consecutively.
func holdsAll(toks []string, cs []clause) bool {
	for _, c := range cs {
		found := false
		for i := 0; i+len(c.terms) <= len(toks) && !found; i++ {
			found = slices.Equal(toks[i:i+len(c.terms)], c.terms)
		}
		if !found {
			return false
		}
	}
	return true
}

// After every step of a random history — sessions created, appended to,
// left with a torn last line (as a crash leaves it), deleted, and
// replaced or added by another program (written elsewhere and renamed
// into the project, as a copy or a sync does) — Search finds exactly the
// records a brute-force match over the files finds. It runs with the
// real clock, where the steps come too fast for any project's change
// stamp to be trusted (every search compares the files), and with one an
// hour ahead, where every stamp is (a project whose stamp did not move is
// taken from the manifest as it was).
func TestSearchEqualsBruteForce(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		now  func() time.Time
	}{{"real clock", nil}, {"stamps trusted", later}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			searchEqualsBruteForce(t, c.now)
		})
	}
}

func searchEqualsBruteForce(t *testing.T, now func() time.Time) {
	f := newFixture(t)
	f.now = now
	r := rand.New(rand.NewPCG(18, 2))
	words := []string{"red", "green", "blue", "cyan", "gold", "grey", "jade", "rust"}
	text := func() string {
		var b strings.Builder
		for range 1 + r.IntN(8) {
			b.WriteString(words[r.IntN(len(words))] + " ")
		}
		return b.String()
	}
	projects := []*storage.Project{f.project(), f.project()}
	var sessions []*storage.Session
	ix := f.index()
	for step := range 80 {
		var did string
		switch k := r.IntN(12); {
		case k < 2 || len(sessions) == 0:
			sessions = append(sessions, f.session(projects[r.IntN(2)], user(text())))
			did = "create"
		case k < 7:
			s := sessions[r.IntN(len(sessions))]
			for range 1 + r.IntN(4) {
				f.append(s, user(text()), assistant(text()))
			}
			did = "append"
		case k < 9:
			s := sessions[r.IntN(len(sessions))]
			tearTail(t, s.Path(), r)
			did = "torn tail"
		case k < 10:
			i := r.IntN(len(sessions))
			sessions[i].Close()
			os.Remove(sessions[i].Path())
			sessions = slices.Delete(sessions, i, i+1)
			did = "delete"
		case k < 11:
			// Replaced: its session, still open here, writes on into
			// the file that was unlinked, which nobody reads.
			i := r.IntN(len(sessions))
			replaceBehind(t, sessions[i].Path(), step, text(), r)
			sessions[i].Close()
			sessions = slices.Delete(sessions, i, i+1)
			did = "replaced"
		default:
			p := projects[r.IntN(2)]
			id := fmt.Sprintf("0badc0de-0000-4000-8000-%012d", step)
			writeBehind(t, p.Path(id), recordLine(t, id, fmt.Sprintf("added-%d", step), user(text())))
			did = "added"
		}
		for range 2 {
			q := words[r.IntN(len(words))]
			switch r.IntN(3) {
			case 0:
				q += " " + words[r.IntN(len(words))]
			case 1:
				q = fmt.Sprintf("%q", q+" "+words[r.IntN(len(words))])
			}
			cs, _ := parseQuery(q)
			hits, err := ix.Search(context.Background(), Query{Text: q, Limit: 100000})
			if err != nil {
				t.Fatalf("step %d (%s), %s: %v", step, did, q, err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, h.SessionID+" "+h.UUID)
			}
			slices.Sort(got)
			if want := bruteForce(t, f.store, cs); !slices.Equal(got, want) {
				t.Fatalf("step %d (%s), %s:\n index %q\n files %q", step, did, q, got, want)
			}
		}
	}
	if len(f.warns) != 0 {
		t.Errorf("warnings: %q", f.warns)
	}
}

// writeBehind writes a file as another program that copies one in does:
// elsewhere in its directory, then renamed to its name.
func writeBehind(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".part"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// replaceBehind replaces a session file by another program's copy of it:
// its whole lines but one, and a record of new text.
func replaceBehind(t *testing.T, path string, step int, text string, r *rand.Rand) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b[:bytes.LastIndexByte(b, '\n')+1], []byte("\n"))
	lines = lines[:len(lines)-1] // the empty piece after the last '\n'
	if len(lines) > 1 {
		i := r.IntN(len(lines))
		lines = slices.Delete(lines, i, i+1)
	}
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	lines = append(lines, recordLine(t, id, fmt.Sprintf("replaced-%d", step), assistant(text)))
	writeBehind(t, path, bytes.Join(lines, nil))
}

// tearTail leaves part of a record at the end of a session file, as a
// write cut by a crash does, or cuts such a part off again.
func tearTail(t *testing.T, path string, r *rand.Rand) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	whole := bytes.LastIndexByte(b, '\n') + 1
	if whole < len(b) {
		if err := os.Truncate(path, int64(whole)); err != nil {
			t.Fatal(err)
		}
		return
	}
	torn, _ := json.Marshal(user("red green torn"))
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := fh.Write(torn[:1+r.IntN(len(torn)-1)]); err != nil {
		t.Fatal(err)
	}
}
