package perf

import (
	"context"
	"testing"
)

// BenchmarkCompactLocal200k is a /compact of a resumed ~200k-token session
// through the real engine (tokenizer, file analysis of the files the
// history read, store) with a model that answers the summary at once:
// selection, the summary request, the file contents, the two records.
// The window is 300k (trigger 240k), so the turn before does not compact.
// Warm: a turn ran first, as when an auto-compaction fires at the end of
// a turn. Cold: straight after the resume, with only what the file tells
// the manager (the last reply's prompt_tokens, stored counts); a manager
// that had to count the context itself would pay for it here (the
// encoding is loaded once per process; that cost is BenchmarkFirstLoadO200k
// in internal/tokens). Target ≤ 50 ms.
func BenchmarkCompactLocal200k(b *testing.B) {
	// 170k by the fast estimate is ~200k by the tokenizer on this text.
	es := newEngineSession(b, 170_000, 1_000_000)
	es.window = 300_000
	for _, warm := range []bool{true, false} {
		name := "Cold"
		if warm {
			name = "Warm"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			var pre, post int
			for b.Loop() {
				b.StopTimer()
				eng := es.resume(b)
				if warm {
					if _, err := eng.Turns().Submit(ctx, "One more small change, please.", nil); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				res, err := eng.Context().Compact(ctx, "")
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				if res.Fallback || len(res.Files) == 0 {
					b.Fatalf("compaction: fallback %v (%s), files %q", res.Fallback, res.Err, res.Files)
				}
				if res.PreTokens < 150_000 {
					b.Fatalf("compacted %d tokens: something compacted before", res.PreTokens)
				}
				pre, post = res.PreTokens, res.PostTokens
				eng.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(pre)/1000, "pre-ktok")
			b.ReportMetric(float64(post)/1000, "post-ktok")
		})
	}
}
