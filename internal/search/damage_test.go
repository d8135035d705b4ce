package search

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// damageQueries are asked of every damaged index: common and rare words,
// phrases, and a word in every record, with a limit that returns every
// hit, so a dropped or invented hit shows.
var damageQueries = []string{"ocelot", `"margay ocelot"`, "caracal lynx", "cat"}

// hitKeys is a search's answer reduced to what must not change when the
// index is rebuilt: which records, with which snippets.
func hitKeys(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s %s %s %q", h.Project, h.SessionID, h.UUID, h.Snippet))
	}
	slices.Sort(out)
	return out
}

func damageCorpus(t *testing.T, f *fixture) {
	r := rand.New(rand.NewPCG(7, 7))
	words := []string{"ocelot", "lynx", "margay", "serval", "caracal", "cat", "the", "a", "of"}
	text := func() string {
		var b strings.Builder
		for range 3 + r.IntN(12) {
			b.WriteString(words[r.IntN(len(words))] + " ")
		}
		return b.String() + "cat"
	}
	for range 2 {
		p := f.project()
		for range 2 {
			s := f.session(p)
			for range 3 {
				for range 4 + r.IntN(6) {
					f.append(s, user(text()), assistant(text()))
				}
				f.search(Query{Text: "cat"}) // one segment per round, then merges
			}
		}
	}
}

// answers asks every damage query; a panic or an error fails the test.
func answers(t *testing.T, ix *Index) [][]string {
	t.Helper()
	var out [][]string
	for _, q := range damageQueries {
		hits, err := ix.Search(context.Background(), Query{Text: q, Limit: 5000})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out = append(out, hitKeys(hits))
	}
	return out
}

// A damaged index never panics and never answers wrong: 120 indexes with
// random bytes flipped, ranges zeroed, files cut short (the manifest
// too) and segments deleted each give the answers of an index built
// afresh from the same session files, and the damage is reported by the
// search that reads it (once) or, when no search read it, found by a full
// verification.
func TestDamagedIndexNeverPanicsOrAnswersWrong(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	damageCorpus(t, f)
	dir := filepath.Join(f.store.Home(), dirName)
	pristine := snapshot(t, dir)
	os.RemoveAll(dir)
	want := answers(t, f.index()) // a fresh index's answers
	r := rand.New(rand.NewPCG(1, 18))
	const trials = 120
	warned, found := 0, 0
	for trial := range trials {
		restore(t, dir, pristine)
		what, changed := damage(t, r, dir, trial)
		verifyErr := verifyAll(f.index())
		f.warns = nil
		got := func() (got [][]string) {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("trial %d (%s): panic: %v", trial, what, p)
				}
			}()
			return answers(t, f.index())
		}()
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("trial %d (%s): answers differ from a fresh index's:\n got %q\nwant %q", trial, what, got, want)
		}
		if len(f.warns) > 1 {
			t.Errorf("trial %d (%s): %d warnings, want at most one: %q", trial, what, len(f.warns), f.warns)
		}
		switch {
		case !changed:
		case len(f.warns) == 1:
			warned++
		case verifyErr != nil:
			found++ // in bytes no search read; the first that does reports it
		default:
			t.Errorf("trial %d (%s): damage neither reported nor found", trial, what)
		}
	}
	t.Logf("%d damaged indexes: %d reported by a search, %d only found by reading every byte", trials, warned, found)
	if warned < trials*3/4 {
		t.Errorf("only %d of %d damaged indexes were reported", warned, trials)
	}
}

// verifyAll reads every byte of the index the way searches do, and
// returns the first damage found.
func verifyAll(ix *Index) error {
	st, err := ix.load()
	if err != nil {
		return err
	}
	defer st.close()
	if _, _, err := ix.scan(st.m); err != nil {
		return err
	}
	for _, s := range st.segs {
		if err := s.verifyAll(); err != nil {
			return err
		}
		for i := range s.nDocs {
			if d, _ := s.doc(i); int(d.file) >= len(st.m.Files) {
				return errDamaged
			}
		}
		for b := range s.nBlocks {
			blk, _ := s.block(b)
			for off := 0; off < len(blk); {
				e, next, err := s.entryAt(blk, off)
				if err != nil {
					return err
				}
				if _, err := decodePostings(e.postings, s.nDocs, nil); err != nil {
					return err
				}
				off = next
			}
		}
	}
	return nil
}

func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		if e.Name() == lockName {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func restore(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// damage damages the index in dir one way, chosen by trial, at a random
// place; it says what it did and whether any byte changed.
func damage(t *testing.T, r *rand.Rand, dir string, trial int) (string, bool) {
	t.Helper()
	segs, _ := filepath.Glob(filepath.Join(dir, "*.seg"))
	slices.Sort(segs)
	seg := segs[r.IntN(len(segs))]
	man := filepath.Join(dir, manifestName)
	edit := func(path string, fn func([]byte) []byte) bool {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		nb := fn(bytes.Clone(b))
		if err := os.WriteFile(path, nb, 0o600); err != nil {
			t.Fatal(err)
		}
		return !bytes.Equal(b, nb)
	}
	switch trial % 8 {
	case 0, 1: // a bit flipped in a segment
		var at int
		changed := edit(seg, func(b []byte) []byte { at = r.IntN(len(b)); b[at] ^= 1 << r.IntN(8); return b })
		return fmt.Sprintf("bit flipped at %d of %s", at, filepath.Base(seg)), changed
	case 2, 3: // a range of a segment zeroed
		var at, n int
		changed := edit(seg, func(b []byte) []byte {
			n = min(len(b), 1+r.IntN(1024))
			at = r.IntN(len(b) - n + 1)
			clear(b[at : at+n])
			return b
		})
		return fmt.Sprintf("%d bytes zeroed at %d of %s", n, at, filepath.Base(seg)), changed
	case 4: // a segment cut short
		var n int
		changed := edit(seg, func(b []byte) []byte { n = r.IntN(len(b)); return b[:n] })
		return fmt.Sprintf("%s cut to %d bytes", filepath.Base(seg), n), changed
	case 5: // a bit of the manifest flipped
		var at int
		changed := edit(man, func(b []byte) []byte { at = r.IntN(len(b)); b[at] ^= 1 << r.IntN(8); return b })
		return fmt.Sprintf("bit flipped at %d of the manifest", at), changed
	case 6: // the manifest cut short
		var n int
		changed := edit(man, func(b []byte) []byte { n = r.IntN(len(b)); return b[:n] })
		return fmt.Sprintf("manifest cut to %d bytes", n), changed
	default: // a segment deleted
		if err := os.Remove(seg); err != nil {
			t.Fatal(err)
		}
		return filepath.Base(seg) + " deleted", true
	}
}
