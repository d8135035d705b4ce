package cli

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/iostreams"
)

func TestReadPrompt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		positional string
		stdin      string
		tty        bool
		want       string
		wantErr    bool
	}{
		{"positional only", "fix it", "", false, "fix it", false},
		{"stdin appended", "review", "diff --git a\n+x\n", false, "review\n\ndiff --git a\n+x", false},
		{"stdin alone", "", "  explain this\n", false, "explain this", false},
		{"terminal stdin is not read", "hi", "typed ahead", true, "hi", false},
		{"nothing", "", "", false, "", true},
		{"blank", "  ", "\n\n", false, "", true},
		{"terminal and nothing", "", "", true, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ios, in, _, _ := iostreams.Test()
			in.WriteString(tt.stdin)
			ios.SetTTY(tt.tty, false, false)
			got, err := readPrompt(context.Background(), ios, tt.positional)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("readPrompt(%q, stdin %q) = %q, %v; want %q (error %v)", tt.positional, tt.stdin, got, err, tt.want, tt.wantErr)
			}
			var usage *UsageError
			if err != nil && !errors.As(err, &usage) {
				t.Errorf("error %v is not a usage error", err)
			}
		})
	}
}

// A writer that never closes stdin must not hold up an interrupt.
func TestReadPromptInterrupted(t *testing.T) {
	t.Parallel()
	ios, _, _, _ := iostreams.Test()
	r, w := io.Pipe()
	defer w.Close()
	ios.In = r
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(10*time.Millisecond, func() { cancel(errInterrupted) })
	_, err := readPrompt(ctx, ios, "x")
	if Describe(err, context.Cause(ctx)).Code != ExitInterrupted {
		t.Errorf("readPrompt after interrupt: %v, want an interrupt", err)
	}
}
