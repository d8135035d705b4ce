package harness

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// NewWorld needs the path Main would have built; no test here runs it.
func TestMain(m *testing.M) {
	binary = "clawdcode-never-run"
	os.Exit(m.Run())
}

func TestRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		want   Result
	}{
		{"success", `printf out; printf err >&2`, Result{Stdout: "out", Stderr: "err"}},
		{"exit status", `printf partial; exit 3`, Result{Stdout: "partial", Code: 3}},
		{"signal", `kill -KILL $$`, Result{Code: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Run(exec.Command("sh", "-c", tt.script))
			if err != nil || got != tt.want {
				t.Fatalf("Run = %+v, %v; want %+v, nil", got, err, tt.want)
			}
		})
	}
}

func TestRunStartFailure(t *testing.T) {
	t.Parallel()
	if _, err := Run(exec.Command(filepath.Join(t.TempDir(), "missing"))); err == nil {
		t.Fatal("Run of a missing executable: want an error")
	}
}

// A deadline kills the process; Run reports the kill as an exit status and
// leaves telling it from others to the context's owner.
func TestRunDeadline(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	got, err := Run(exec.CommandContext(ctx, "sleep", "30"))
	if err != nil || got.Code != -1 || ctx.Err() == nil {
		t.Fatalf("Run = %+v, %v (ctx %v); want code -1 after the deadline", got, err, ctx.Err())
	}
}

func TestNewWorld(t *testing.T) {
	t.Parallel()
	w := NewWorld(t, llmtest.Options{})
	w.Key = "k"
	w.ExtraEnv = []string{"EXTRA=1"}
	for _, d := range []string{w.UserHome, w.Tmp, w.Project} {
		if info, err := os.Stat(d); err != nil || !info.IsDir() {
			t.Errorf("%s: want a directory (%v)", d, err)
		}
		if filepath.Dir(d) != w.Root {
			t.Errorf("%s is not directly under the world's root %s", d, w.Root)
		}
	}
	if _, err := os.Stat(w.Home); !os.IsNotExist(err) {
		t.Errorf("CLAWDCODE_HOME exists before any run (%v): clawdcode is the one to create it", err)
	}
	env := w.Env()
	if env[len(env)-1] != "EXTRA=1" {
		t.Errorf("Env does not end with ExtraEnv: %q", env)
	}
	for _, want := range []string{"HOME=" + w.UserHome, "TMPDIR=" + w.Tmp, "CLAWDCODE_HOME=" + w.Home, "OPENAI_BASE_URL=" + w.Server.URL(), "OPENAI_API_KEY=k"} {
		if !slices.Contains(env, want) {
			t.Errorf("Env lacks %s: %q", want, env)
		}
	}
}
