package tools

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestBash(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "marker.txt"), "here")
	tests := []struct {
		name    string
		command string
		want    string
		wantErr string
	}{
		{name: "stdout", command: "echo hello", want: "hello\n"},
		{name: "interleaved stderr", command: "echo out; echo err >&2; echo out2", want: "out\nerr\nout2\n"},
		{name: "runs in the project root", command: "cat marker.txt", want: "here"},
		{name: "stdin is empty", command: "cat; echo done", want: "done\n"},
		{name: "no output", command: "true", want: "(no output)"},
		{name: "non-zero exit", command: "echo oops; exit 3", want: "oops\n", wantErr: "exit status 3"},
		{name: "killed by a signal", command: "echo before; kill -KILL $$", want: "before\n", wantErr: "killed by signal killed"},
		{name: "no controlling terminal", command: "exec 3</dev/tty && echo opened || echo none", want: "none\n"},
		{name: "git never prompts", command: `echo "$GIT_TERMINAL_PROMPT"`, want: "0\n"},
	}
	env := NewEnv(root)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := call(t, env, NameBash, obj{"command": tt.command})
			if !strings.Contains(r.Output, tt.want) || (tt.want == "(no output)") != (r.Output == "(no output)") {
				t.Fatalf("output %q, want %q", r.Output, tt.want)
			}
			if tt.wantErr == "" {
				wantOK(t, r)
			} else {
				wantError(t, r, tt.wantErr)
			}
		})
	}
}

// processGone waits until pid no longer runs. A zombie counts as gone: it is
// dead and only waits for a parent (init, here) to reap it.
func processGone(t *testing.T, pid int) bool {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
				return true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

func firstPid(t *testing.T, out string) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(out, "\n", 2)[0]))
	if err != nil || pid <= 1 {
		t.Fatalf("no pid in output %q", out)
	}
	return pid
}

func TestBashTimeoutKillsTheGroup(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	start := time.Now()
	r := call(t, env, NameBash, obj{"command": "sleep 300 & echo $!; sleep 300; wait", "timeout": 300})
	if d := time.Since(start); d > waitLimit {
		t.Fatalf("took %v", d)
	}
	wantError(t, r, "timed out after 300ms")
	if pid := firstPid(t, r.Output); !processGone(t, pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("background child %d survived the timeout", pid)
	}
}

func TestBashSIGKILLAfterGrace(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	// The child ignores SIGTERM (an ignored signal stays ignored across exec).
	r := call(t, env, NameBash, obj{"command": "trap '' TERM; sleep 300 & echo $!; wait", "timeout": 200})
	wantError(t, r, "timed out")
	if pid := firstPid(t, r.Output); !processGone(t, pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("child %d ignoring SIGTERM survived", pid)
	}
}

func TestBashContextCancel(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancelled once the command has said it started (a file it makes
	// after the echo), not after a time a loaded machine may not have
	// reached the echo in.
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(filepath.Join(env.Root, "started")); err == nil {
				cancel()
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	start := time.Now()
	r := callCtx(t, ctx, env, NameBash, obj{"command": "echo started; echo > started; sleep 300"})
	if d := time.Since(start); d > waitLimit {
		t.Fatalf("took %v", d)
	}
	wantError(t, r, "interrupted")
	if !strings.Contains(r.Output, "started") {
		t.Fatalf("captured output lost: %q", r.Output)
	}
}

func TestBashBackgroundJobDoesNotHoldTheCall(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	start := time.Now()
	r := call(t, env, NameBash, obj{"command": "sleep 300 & echo $!"})
	pid := firstPid(t, r.Output)
	defer syscall.Kill(pid, syscall.SIGKILL)
	if d := time.Since(start); d > pipeGrace+waitLimit {
		t.Fatalf("took %v", d)
	}
	wantOK(t, r)
}

func TestBashHugeOutputCapped(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	// 5.5 MB of output.
	r := call(t, env, NameBash, obj{"command": "yes 0123456789 | head -n 500000; echo last"})
	wantOK(t, r)
	if len(r.Output) > OutputCap+100 {
		t.Fatalf("output %d bytes, cap %d", len(r.Output), OutputCap)
	}
	if !strings.HasPrefix(r.Output, "0123456789\n") || !strings.HasSuffix(r.Output, "0123456789\nlast\n") {
		t.Fatalf("head or tail lost: %q", clip(r.Output))
	}
	if !markerRE.MatchString(r.Output) {
		t.Fatalf("no omission marker: %q", clip(r.Output))
	}
}

// A timeout beyond the maximum is clamped, not refused; none is the
// default; a non-positive one is refused.
func TestBashTimeoutClamped(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		ms    int
		given bool
		want  time.Duration
	}{
		{0, false, bashDefaultTimeout},
		{1500, true, 1500 * time.Millisecond},
		{int(bashMaxTimeout / time.Millisecond), true, bashMaxTimeout},
		{10_000_000, true, bashMaxTimeout},
		{math.MaxInt32, true, bashMaxTimeout},
	} {
		if got, err := bashTimeout(tt.ms, tt.given); err != nil || got != tt.want {
			t.Errorf("bashTimeout(%d, %v) = %v, %v; want %v", tt.ms, tt.given, got, err, tt.want)
		}
	}
	for _, ms := range []int{0, -5} {
		if _, err := bashTimeout(ms, true); err == nil {
			t.Errorf("bashTimeout(%d) accepted", ms)
		}
	}
	// Through the tool: a huge timeout runs the command.
	wantOK(t, call(t, NewEnv(t.TempDir()), NameBash, obj{"command": "true", "timeout": 10_000_000}))
}

func TestBashHidesTheAPIKey(t *testing.T) {
	t.Parallel()
	e := NewEnv(t.TempDir())
	e.PassEnv, e.SecretEnv = []string{"NPM_TOKEN"}, []string{"MY_LLM"}
	env := e.commandEnv([]string{"OPENAI_API_KEY=sk-secret", "HOME=/h", "OPENAI_API_KEY_FILE=x",
		"GITHUB_TOKEN=ghp", "NPM_TOKEN=npm", "MY_LLM=llm", "CLAWDCODE_ENV_PASSTHROUGH=DB_PASSWORD", "DB_PASSWORD=pw"})
	joined := strings.Join(env, "\n") + "\n"
	for _, gone := range []string{"sk-secret", "GITHUB_TOKEN", "MY_LLM"} {
		if strings.Contains(joined, gone) {
			t.Errorf("a command sees %s: %q", gone, env)
		}
	}
	for _, kept := range []string{"HOME=/h\n", "OPENAI_API_KEY_FILE=x\n", "NPM_TOKEN=npm\n", "DB_PASSWORD=pw\n"} {
		if !strings.Contains(joined, kept) {
			t.Errorf("a command lacks %q: %q", kept, env)
		}
	}
}

// TestBashGraceCoversTheGroup: the shell dies at SIGTERM at once, but a
// child that cleans up on SIGTERM still gets the grace to finish.
func TestBashGraceCoversTheGroup(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	env := NewEnv(root)
	child := `trap 'sleep 0.3; echo cleaned > cleaned.txt; exit 0' TERM; while :; do sleep 0.05; done`
	// The child's output goes elsewhere, so the call is not held by its pipe.
	r := call(t, env, NameBash, obj{"command": "bash -c \"" + child + "\" >/dev/null 2>&1 & wait", "timeout": 300})
	wantError(t, r, "timed out")
	if got, err := os.ReadFile(filepath.Join(root, "cleaned.txt")); err != nil || string(got) != "cleaned\n" {
		t.Fatalf("child did not finish its cleanup: %q, %v", got, err)
	}
}
