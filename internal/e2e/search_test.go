package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// Searches and session writers at once: every search succeeds, none sees
// half an index, and a search started after the writers finished sees
// every record they wrote — also after the index is deleted.
func TestSearchWhileOthersSearchAndWrite(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(llmtest.Agent())
	var wg sync.WaitGroup
	errs := make(chan string, 32)
	for i := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if r := w.Run("-p", fmt.Sprintf("wombat number %d", i)); r.Code != 0 {
				errs <- r.String()
			}
		}()
		go func() {
			defer wg.Done()
			if r := w.Run("search", "--json", "wombat"); r.Code != 0 || !strings.HasPrefix(strings.TrimSpace(r.Stdout), "[") {
				errs <- r.String()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("a concurrent run failed: %s", e)
	}
	// Each run wrote its prompt and the echo of it.
	r := w.MustRun("search", "--json", "--limit", "100", "wombat")
	if n := strings.Count(r.Stdout, `"uuid"`); n != 8 {
		t.Errorf("%d hits after the writers finished, want 8:\n%s", n, r.Stdout)
	}
	if err := os.RemoveAll(filepath.Join(w.Home, "search")); err != nil {
		t.Fatal(err)
	}
	r = w.MustRun("search", "--json", "--limit", "100", "wombat")
	if n := strings.Count(r.Stdout, `"uuid"`); n != 8 {
		t.Errorf("%d hits after deleting the index, want 8", n)
	}
}

// A damaged index, through the binary: bits flipped, ranges zeroed,
// segments cut short or deleted, the manifest changed, cut or emptied. Every search
// exits 0 with the answer of a fresh index and at most one warning line,
// and damage to what every search reads (the manifest, a whole segment)
// is always reported.
func TestSearchWithADamagedIndex(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(llmtest.Agent())
	for i := range 6 {
		w.MustRun("-p", fmt.Sprintf("the quokka number %d hops past wombat %d", i, i*7))
	}
	dir := filepath.Join(w.Home, "search")
	want := w.MustRun("search", "--json", "--limit", "100", "quokka").Stdout
	if strings.Count(want, `"uuid"`) != 12 {
		t.Fatalf("want 12 hits, got:\n%s", want)
	}
	segs, _ := filepath.Glob(filepath.Join(dir, "*.seg"))
	if len(segs) == 0 {
		t.Fatal("no segment")
	}
	pristine := map[string][]byte{}
	// The manifest is binary, its last four bytes a CRC-32C of the rest.
	man := filepath.Join(dir, "manifest")
	for _, p := range append(segs, man) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		pristine[p] = b
	}
	seg := segs[0]
	damages := []indexDamage{
		{"manifest bit in its body", true, func(b []byte) []byte { b[len(b)/2] ^= 0x10; return b }, man},
		{"manifest checksum", true, func(b []byte) []byte { b[len(b)-1] ^= 0x01; return b }, man},
		{"manifest torn", true, func(b []byte) []byte { return b[:len(b)/2] }, man},
		{"manifest emptied", true, func(b []byte) []byte { return b[:0] }, man},
		{"segment cut", true, func(b []byte) []byte { return b[:len(b)-5] }, seg},
		{"segment deleted", true, nil, seg},
	}
	for i := range 12 {
		at := i * 97
		damages = append(damages,
			indexDamage{fmt.Sprintf("segment bit %d", at), false, func(b []byte) []byte { b[at%len(b)] ^= 0x10; return b }, seg},
			indexDamage{fmt.Sprintf("segment zeroed from %d", at), false, func(b []byte) []byte { clear(b[at%len(b) : min(len(b), at%len(b)+1024)]); return b }, seg})
	}
	for _, d := range damages {
		for p, b := range pristine {
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if d.fn == nil {
			os.Remove(d.file)
		} else if err := os.WriteFile(d.file, d.fn(append([]byte(nil), pristine[d.file]...)), 0o600); err != nil {
			t.Fatal(err)
		}
		r := w.Run("search", "--json", "--limit", "100", "quokka")
		if r.Code != 0 || r.Stdout != want {
			t.Errorf("%s: exit %d, stdout differs from a fresh index's:\n%s\nstderr: %s", d.name, r.Code, r.Stdout, r.Stderr)
		}
		warnings := strings.Count(r.Stderr, "\n")
		if warnings > 1 || (d.always && !strings.Contains(r.Stderr, "is damaged")) {
			t.Errorf("%s: stderr %q, want one warning", d.name, r.Stderr)
		}
	}
}

// indexDamage is one way to damage a file of the index (fn nil: delete
// it); always says that every search reads what it damages.
type indexDamage struct {
	name   string
	always bool
	fn     func(b []byte) []byte
	file   string
}
