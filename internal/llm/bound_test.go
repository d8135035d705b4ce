package llm

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestEndlessStreamFailsTheAttempt: issue 13 item 9. A server streaming
// without end grew memory without bound (125 → 641 MB in 25 s) and never
// failed. Now the reply is bounded in bytes — by the requested max tokens
// with a margin, else by a fixed cap — and the attempt fails clearly,
// without a retry, having shown only what came before.
func TestEndlessStreamFailsTheAttempt(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		maxTokens int
		wantMsg   string
		maxBytes  int
	}{
		{"max tokens asked", 1000, "max 1000 tokens were asked for", boundFor(1000, DefaultMaxReplyBytes).bytes},
		{"no max tokens", 0, "more than 1 MB", 1 << 20}, // the client's cap (16 MB by default; small here for -race)
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Options{})
			srv.SetResponder(func(llmtest.Request) llmtest.Reply { return llmtest.Endless("") })
			c, _ := newTestClient(t, srv.URL(), func(cfg *Config) { cfg.MaxReplyBytes = 1 << 20 })
			req := userRequest("never stop")
			req.MaxCompletionTokens = tt.maxTokens
			shown := 0
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			resp, err := c.Stream(ctx, req, func(d Delta) { shown += len(d.Content) })
			if ctx.Err() != nil {
				t.Fatal("the endless stream was never stopped")
			}
			var le *Error
			if resp != nil || !errors.As(err, &le) || !errors.Is(err, ErrReplyTooLong) {
				t.Fatalf("Stream = %v, %v; want an *Error wrapping ErrReplyTooLong", resp, err)
			}
			if !strings.Contains(le.Message, tt.wantMsg) || !le.Partial {
				t.Errorf("error %q (partial %v): want it to say %q, partial", le.Message, le.Partial, tt.wantMsg)
			}
			if shown > tt.maxBytes {
				t.Errorf("%d bytes shown, past the bound of %d", shown, tt.maxBytes)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d attempts, want 1: a runaway reply is not retried", n)
			}
		})
	}
}

// TestSlowEndlessStreamHitsTheTimeBound: a reply that streams steadily
// (never idle) still ends at Config.MaxReplyTime.
func TestSlowEndlessStreamHitsTheTimeBound(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(func(llmtest.Request) llmtest.Reply { return llmtest.Endless("x") })
	c, _ := newTestClient(t, srv.URL(), func(cfg *Config) { cfg.MaxReplyTime = 300 * time.Millisecond })
	start := time.Now()
	_, err := c.Stream(context.Background(), userRequest("go on"), nil)
	if !errors.Is(err, ErrReplyTooLong) || !strings.Contains(err.Error(), "still streaming after 300ms") {
		t.Fatalf("Stream: %v; want the time bound's error", err)
	}
	// A safety net: the stream never ends by itself.
	if d := time.Since(start); d > time.Minute {
		t.Errorf("took %v", d)
	}
}

// BenchmarkEndlessStreamMemory reports the heap an endless stream leaves
// in use when its attempt fails at the byte bound (make bench).
func BenchmarkEndlessStreamMemory(b *testing.B) {
	srv := llmtest.NewServer(b, llmtest.Options{})
	srv.SetResponder(func(llmtest.Request) llmtest.Reply { return llmtest.Endless("") })
	c, _ := newTestClient(b, srv.URL())
	var peak uint64
	for b.Loop() {
		deltas := 0
		_, err := c.Stream(context.Background(), userRequest("never stop"), func(Delta) {
			if deltas++; deltas%4096 == 0 { // ReadMemStats stops the world: sample
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		})
		if !errors.Is(err, ErrReplyTooLong) {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
