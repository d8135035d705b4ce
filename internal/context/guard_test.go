package contextmgr

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llm"
)

// guardFixture is a session whose next request is far below the trigger
// by the cheap byte bound too, so Request never counts it exactly: the
// case where the bound (four times the count with byteCounter) used to
// stand in for the size of the rejected request.
func guardFixture(t *testing.T) (*fixture, int) {
	t.Helper()
	f := newFixture(t, 100000, nil)
	for i := range 4 {
		f.turn(i)
	}
	f.user("look at the log")
	f.toolTurn("log", "Read", `{"file_path":"x.log"}`, strings.Repeat("L", 12000))
	sent := requestSize(f.counter, f.request())
	if f.m.acct.tokenized {
		t.Fatal("the request was counted exactly; the test needs one decided by the bound")
	}
	return f, sent
}

// TestGuardLearnsFromTheExactCount: without the server's words, the new
// window is 90% of what the rejected request really weighed, not of its
// byte bound, so the guard's own summary call (sized from the window)
// fits the server that rejected it.
func TestGuardLearnsFromTheExactCount(t *testing.T) {
	t.Parallel()
	f, sent := guardFixture(t)
	if ok, err := f.m.RecoverOverflowFrom(context.Background(), 1, nil); !ok || err != nil {
		t.Fatalf("attempt 1: %v %v", ok, err)
	}
	// The manager's count of a request is a little above the server's
	// (records are counted one by one), hence not exactly 90%.
	if f.m.guard.effective >= sent {
		t.Fatalf("effective window %d after a rejected %d-token request, want below it", f.m.guard.effective, sent)
	}
	// The ladder clears old tool results before it summarises: the
	// summary comes once the window is too small for clearing to do.
	for attempt := 2; f.llm.calls() == 0 && attempt <= 4; attempt++ {
		f.request()
		if ok, err := f.m.RecoverOverflowFrom(context.Background(), attempt, errors.New("400 too long")); !ok || err != nil {
			t.Fatalf("attempt %d: %v %v", attempt, ok, err)
		}
	}
	if f.llm.calls() == 0 {
		t.Fatal("attempts 2 to 4 did not ask for a summary")
	}
	for i, r := range f.llm.reqs {
		if n := requestSize(f.counter, r) + r.MaxCompletionTokens; n > sent-1 {
			t.Errorf("summary call %d needs %d tokens; the server rejected %d", i, n, sent)
		}
	}
}

// TestGuardTakesTheServersWindow: when the rejection states the window,
// that is the effective window (never above what was believed).
func TestGuardTakesTheServersWindow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		rejection error
		want      int
	}{
		{"llm error", &llm.Error{Kind: llm.KindOverflow, StatusCode: 400, Message: "This model's maximum context length is 9088 tokens. However, your messages resulted in 10048 tokens. Please reduce the length of the messages."}, 9088},
		{"wrapped", fmt.Errorf("model call: %w", &llm.Error{Kind: llm.KindOverflow, Message: "request (9200 tokens) exceeds the available context size (8192 tokens), try increasing it"}), 8192},
		{"plain error text", errors.New("prompt is too long: 9000 tokens > 4000 maximum"), 4000},
		// A larger window explains nothing: the server counts the request
		// larger than clawdcode, so the window goes below the request.
		{"larger than believed", errors.New("This model's maximum context length is 200000 tokens."), -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, sent := guardFixture(t)
			if ok, err := f.m.RecoverOverflowFrom(context.Background(), 1, tt.rejection); !ok || err != nil {
				t.Fatalf("attempt 1: %v %v", ok, err)
			}
			if tt.want < 0 {
				if w := f.m.guard.effective; w >= sent {
					t.Errorf("effective window %d, want below the rejected %d tokens", w, sent)
				}
				return
			}
			if f.m.guard.effective != tt.want {
				t.Errorf("effective window %d, want %d", f.m.guard.effective, tt.want)
			}
			if u := f.m.Usage(); u.Window != tt.want {
				t.Errorf("Usage().Window = %d, want %d", u.Window, tt.want)
			}
		})
	}
}
