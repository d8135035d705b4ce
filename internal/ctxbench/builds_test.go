package ctxbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestBaselineRowSitsAboveTheTrees: with a baseline, every row runs for
// both builds, its sessions in the one pool, and the table prints each
// baseline row right above the tree's row of the same window and
// summariser.
func TestBaselineRowSitsAboveTheTrees(t *testing.T) {
	t.Parallel()
	base := filepath.Join(t.TempDir(), "clawdcode")
	if err := os.WriteFile(base, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	bs, err := builds(base)
	if err != nil {
		t.Fatal(err)
	}
	var p plan
	c := corpus(2, 10, 12)
	var rows []*row
	for _, w := range []int{4000, 8000} {
		rows = append(rows, p.rows(bs, config{window: w, mode: llmtest.SummaryLossy}, c)...)
	}
	if len(p.jobs) != 2*2*len(c) {
		t.Fatalf("%d jobs, want a session of each row of each build: %d", len(p.jobs), 2*2*len(c))
	}
	for _, rw := range rows {
		if want := map[string]string{"base": base, "tree": ""}[rw.cfg.build.name]; rw.cfg.build.binary != want {
			t.Errorf("row %s runs binary %q, want %q", rowName(rw.cfg), rw.cfg.build.binary, want)
		}
	}
	var b strings.Builder
	printTable(&b, rows, 0)
	var got []string
	for _, line := range strings.Split(b.String(), "\n")[1:] {
		if f := strings.Fields(line); len(f) > 2 && (f[0] == "base" || f[0] == "tree") {
			got = append(got, f[0]+" "+f[1])
		}
	}
	want := "base 4k,tree 4k,base 8k,tree 8k"
	if strings.Join(got, ",") != want {
		t.Errorf("table rows %q, want %q\n%s", got, want, b.String())
	}
}

func TestBuildsRefusesWhatIsNoBinary(t *testing.T) {
	t.Parallel()
	if bs, err := builds(""); err != nil || len(bs) != 1 || bs[0].name != "tree" {
		t.Errorf("no baseline: builds = %v, %v; want the tree's alone", bs, err)
	}
	plain := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{plain, filepath.Join(t.TempDir(), "missing")} {
		if _, err := builds(p); err == nil {
			t.Errorf("baseline %s: no error; a typo must not quietly measure the tree twice", p)
		}
	}
}
