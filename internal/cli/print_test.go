package cli

import (
	"context"
	"errors"
	"io"
	"strings"
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
			got, err := readPrompt(context.Background(), ios, tt.positional, stdinLimit(0))
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
	_, err := readPrompt(ctx, ios, "x", stdinLimit(0))
	if Describe(err, context.Cause(ctx)).Code != ExitInterrupted {
		t.Errorf("readPrompt after interrupt: %v, want an interrupt", err)
	}
}

// TestReadPromptCutsAHugeStdin: issue 14 item 3. A 13 MB stdin took 30 s
// and 1.2 GB; now -p reads at most its limit, ends the text at a line end
// with a marker the model reads, and warns on stderr.
func TestReadPromptCutsAHugeStdin(t *testing.T) {
	t.Parallel()
	ios, in, _, errOut := iostreams.Test()
	line := strings.Repeat("a", 99) + "\n"
	in.WriteString(strings.Repeat(line, 10_000)) // 1 MB
	got, err := readPrompt(context.Background(), ios, "summarise", 256<<10)
	if err != nil {
		t.Fatal(err)
	}
	body, marker, ok := strings.Cut(got, "\n\n[clawdcode: stdin was cut here")
	if !ok || !strings.HasPrefix(body, "summarise\n\n"+line) || len(body) > 256<<10+len("summarise\n\n") {
		t.Fatalf("prompt of %d bytes does not end in the marker after at most 256 KiB: …%q", len(got), got[max(0, len(got)-200):])
	}
	if !strings.HasSuffix(body, strings.Repeat("a", 99)) || !strings.Contains(marker, "256 KiB") {
		t.Errorf("the cut is not at a line end, or the marker does not say the limit: …%q", got[len(body)-120:])
	}
	if !strings.Contains(errOut.String(), "clawdcode: warning: stdin is longer than 256 KiB") {
		t.Errorf("no warning on stderr: %q", errOut)
	}
}

// endless is a stdin whose writer never stops (`yes | clawdcode -p …`).
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'y'
	}
	return len(p), nil
}

func TestReadPromptEndlessStdin(t *testing.T) {
	t.Parallel()
	ios, _, _, _ := iostreams.Test()
	ios.In = endless{}
	done := make(chan error, 1)
	go func() {
		_, err := readPrompt(context.Background(), ios, "", 256<<10)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute): // a safety net, not a measure
		t.Fatal("reading an endless stdin never ended")
	}
}
