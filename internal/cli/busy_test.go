package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// TestBusyHintFitsTheCommand: a session another process has open is
// refused, and the hint says what to do about it for the command that met
// it — starting afresh fits a resume, not a removal.
func TestBusyHintFitsTheCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     func(id string) []string
		want     string
		unwanted string
	}{
		{"rm", func(id string) []string { return []string{"sessions", "rm", "--yes", id} }, busyHintRemove, "-c/-r"},
		{"resume", func(id string) []string { return []string{"-r", id, "-p", "hi"} }, busyHintResume, "never deleted"},
		{"continue", func(string) []string { return []string{"-c", "-p", "hi"} }, busyHintResume, "never deleted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newSessionsEnv(t, "keep me", "kept")
			p, err := storage.NewStore(env.home).Project(env.root)
			if err != nil {
				t.Fatal(err)
			}
			// The lock is per open file: a second Open, here the
			// command's, is refused as another process's would be.
			held, err := p.Open(context.Background(), env.id)
			if err != nil {
				t.Fatal(err)
			}
			defer held.Close()

			ios, _, _, errOut := iostreams.Test()
			f := NewFactory(ios)
			f.Getenv = func(k string) string {
				if k == "OPENAI_API_KEY" {
					return "test-key" // -p builds its client first; it never calls it here
				}
				return ""
			}
			f.Getwd = func() (string, error) { return env.root, nil }
			f.Home = func() (string, error) { return env.home, nil }
			if code := Run(context.Background(), f, tt.args(env.id)); code != ExitError {
				t.Fatalf("exit %d, want %d; stderr %q", code, ExitError, errOut)
			}
			stderr := errOut.String()
			if !strings.Contains(stderr, "is open in another clawdcode process") {
				t.Errorf("stderr %q does not say the session is busy", stderr)
			}
			if !strings.Contains(stderr, "  "+tt.want+"\n") {
				t.Errorf("stderr %q lacks the hint %q", stderr, tt.want)
			}
			if strings.Contains(stderr, tt.unwanted) || strings.Count(stderr, "another clawdcode process has this session open") != 1 {
				t.Errorf("stderr %q: want one hint, fitting %s", stderr, tt.name)
			}
		})
	}
}
