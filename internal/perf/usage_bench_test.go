package perf

import (
	"encoding/json"
	"testing"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// BenchmarkUsage1GB is `clawdcode usage --all --json` over 1 GiB of
// sessions (256 files of 4 MiB, the search corpus) whose usage summaries
// index.json holds — as it does for every session clawdcode wrote, and
// for any other once a report has caught it up. Target ≤ 1 s. The
// corpus's files are written beside the store, as another program would:
// the first report reads each of them once, catching their summaries up,
// and its time is reported as first-s (not a target).
func BenchmarkUsage1GB(b *testing.B) {
	w := newWorld(b)
	p, err := storage.NewStore(w.home).Project(w.project)
	if err != nil {
		b.Fatal(err)
	}
	total := writeSearchCorpus(b, p)
	b.Logf("corpus: %d MB in %s", total>>20, p.Dir)
	args := []string{"usage", "--json", "--all"}
	first := w.run(b, args...)
	var rep struct {
		Totals struct {
			Input int `json:"input_tokens"`
		} `json:"totals"`
	}
	if err := json.Unmarshal([]byte(first.stdout), &rep); err != nil || rep.Totals.Input == 0 {
		b.Fatalf("usage: %v\n%s", err, clip(first.stdout, 400))
	}
	var s sample
	for b.Loop() {
		r := w.run(b, args...)
		if r.stdout != first.stdout {
			b.Fatalf("a warm report differs from the first:\n%s\n%s", clip(r.stdout, 400), clip(first.stdout, 400))
		}
		s.add(r)
	}
	s.report(b, "")
	b.ReportMetric(first.wall.Seconds(), "first-s") // after the loop, which resets the metrics
}
