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
// left with a torn last line (as a crash leaves it) and deleted — Search
// finds exactly the records a brute-force match over the files finds.
func TestSearchEqualsBruteForce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
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
	for step := range 60 {
		var did string
		switch k := r.IntN(10); {
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
		default:
			i := r.IntN(len(sessions))
			sessions[i].Close()
			os.Remove(sessions[i].Path())
			sessions = slices.Delete(sessions, i, i+1)
			did = "delete"
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
