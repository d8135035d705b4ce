package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/sandbox"
	"github.com/clawdcode/clawdcode/internal/sessionschema"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run the real main in a child process:
// "clawdcode" in a script is Main (or, with harness.TestBinaryEnv set,
// that binary, so the scripts can be run against an older build), and
// "exits N prog args…" runs prog and passes when its exit status is
// exactly N.
func TestMain(m *testing.M) {
	// A run in this process starts its sandbox host from this binary.
	if code, ok := sandbox.Helper(); ok {
		os.Exit(code)
	}
	testscript.Main(m, map[string]func(){
		"clawdcode": clawdcodeMain,
		"exits":     exitsMain,
	})
}

func clawdcodeMain() {
	bin, err := harness.TestBinary()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if bin == "" {
		os.Exit(Main())
	}
	status, err := runChild(bin, os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "clawdcode:", err)
		os.Exit(1)
	}
	os.Exit(status)
}

// exitsMain checks an exit status, which testscript's exec cannot: the
// contract gives 1, 2 and 130 distinct meanings.
func exitsMain() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: exits status program [args...]")
		os.Exit(1)
	}
	want, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "exits: bad status:", os.Args[1])
		os.Exit(1)
	}
	got, err := runChild(os.Args[2], os.Args[3:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "exits:", err)
		os.Exit(1)
	}
	if got != want {
		fmt.Fprintf(os.Stderr, "exits: %s exited with status %d, want %d\n", os.Args[2], got, want)
		os.Exit(1)
	}
}

// runChild runs prog with this process's standard streams, passes on the
// signals a script sends ("kill -INT" reaches this wrapper) and returns
// its exit status.
func runChild(prog string, args []string) (int, error) {
	cmd := exec.Command(prog, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	if err := cmd.Wait(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return 0, err
		}
		return exit.ExitCode(), nil
	}
	return 0, nil
}

func TestScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("the end-to-end scripts run the real main in child processes; skipped under -short (make test runs them)")
	}
	t.Parallel()
	servers := &fakeServers{t: t, m: map[*testscript.TestScript]*llmtest.Server{}}
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("CLAWDCODE_HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "userhome"))
			// A race-enabled child waits 1 s at exit by default; with
			// ~100 children that is most of the suite's time under -race.
			env.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			// The scripts' environment is their own: pass on (made
			// absolute) the build to run instead of Main, if any.
			bin, err := harness.TestBinary()
			if err != nil {
				return err
			}
			if bin != "" {
				env.Setenv(harness.TestBinaryEnv, bin)
			}
			// At the end of each script, every record clawdcode wrote must
			// match docs/session.schema.json; the bytes of a file the
			// script installed with "session" are its own, not checked.
			planted := map[string]int64{}
			env.Values[plantedKey{}] = planted
			home := env.Getenv("CLAWDCODE_HOME")
			if tb, ok := env.T().(testing.TB); ok {
				env.Defer(func() { sessionschema.CheckHome(tb, home, planted) })
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"session":  cmdSession,
			"waitfile": cmdWaitFile,
			"latest":   cmdLatest,
			"llm":      servers.cmd,
		},
		RequireExplicitExec: true,
	})
}

// offsetRef is a placeholder for the byte offset of the line holding a
// uuid, so a crafted boundary's retainedOffset stays right whatever the
// length of $WORK.
var offsetRef = regexp.MustCompile(`@OFFSET:([A-Za-z0-9-]+)@`)

// cmdSession installs a crafted session file as the session <id> of the
// project in the current directory:
//
//	session [-torn] [-nomarker] <id> <file>
//
// $CWD in the file becomes the project root and @OFFSET:<uuid>@ the byte
// offset of the line with that uuid; -torn drops the final newline so the
// last line is cut as a crash mid-write leaves it; -nomarker leaves the
// project directory without its .project marker, as sessions copied in by
// hand leave it.
func cmdSession(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! session")
	}
	var torn, noMarker bool
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-torn":
			torn = true
		case "-nomarker":
			noMarker = true
		default:
			ts.Fatalf("session: unknown flag %s", args[0])
		}
		args = args[1:]
	}
	if len(args) != 2 {
		ts.Fatalf("usage: session [-torn] [-nomarker] <id> <file>")
	}
	store := storage.NewStore(ts.Getenv("CLAWDCODE_HOME"))
	p, err := store.Project(ts.MkAbs("."))
	ts.Check(err)

	text := strings.ReplaceAll(ts.ReadFile(args[1]), "$CWD", p.Root)
	lineStart := map[string]int{}
	off := 0
	for line := range strings.SplitAfterSeq(text, "\n") {
		if m := regexp.MustCompile(`"uuid":"([^"]+)"`).FindStringSubmatch(line); m != nil {
			lineStart[m[1]] = off
		}
		off += len(line)
	}
	text = offsetRef.ReplaceAllStringFunc(text, func(ref string) string {
		uuid := offsetRef.FindStringSubmatch(ref)[1]
		o, ok := lineStart[uuid]
		if !ok {
			ts.Fatalf("session %s: no line with uuid %q for %s", args[0], uuid, ref)
		}
		return strconv.Itoa(o)
	})
	if torn {
		text = strings.TrimSuffix(text, "\n")
	}

	// The directory is claimed with storage's documented .project marker,
	// as the first Create would.
	ts.Check(os.MkdirAll(p.Dir, 0o700))
	marker := filepath.Join(p.Dir, ".project")
	if _, err := os.Stat(marker); err != nil && !noMarker {
		ts.Check(os.WriteFile(marker, []byte(p.Root), 0o600))
	}
	path := filepath.Join(p.Dir, args[0]+".jsonl")
	ts.Check(os.WriteFile(path, []byte(text), 0o600))
	if planted, ok := ts.Value(plantedKey{}).(map[string]int64); ok {
		planted[path] = int64(len(text))
	}
}

// plantedKey holds, in a script's values, the files "session" installed
// and their length: what the schema check leaves alone.
type plantedKey struct{}

// cmdLatest sets $LATEST to the id of this project's most recently
// updated session, for scripts that look at what a run stored.
func cmdLatest(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: latest")
	}
	p, err := storage.NewStore(ts.Getenv("CLAWDCODE_HOME")).Project(ts.MkAbs("."))
	ts.Check(err)
	id, err := p.Latest()
	ts.Check(err)
	ts.Setenv("LATEST", id)
}

// cmdWaitFile waits (up to 60 s, which only a hang exhausts) until a file exists: a script's way to
// know that a background command reached a point.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile <path>")
	}
	path := ts.MkAbs(args[0])
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfile: %s did not appear in 60 s", args[0])
		}
	}
}

// fakeServers holds each script's fake chat-completions server.
type fakeServers struct {
	t  *testing.T
	mu sync.Mutex
	m  map[*testscript.TestScript]*llmtest.Server
}

// cmd drives the script's fake server (internal/llmtest):
//
//	llm start [api-key]       start it, playing llmtest.Agent; OPENAI_BASE_URL points at it
//	llm enqueue <reply> [arg] script the next reply: text <s> | 429 | 401 | 500 | quota | cut <s> | hang
//	llm requests              print the requests received, one message a line
//	llm tools                 print the last request's tools, one a line: name, then description
//	llm wait <n>              wait (up to 10 s) until n requests have arrived
//	llm pending <n>           check how many enqueued replies are unused
func (s *fakeServers) cmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! llm")
	}
	if len(args) == 0 {
		ts.Fatalf("usage: llm start|enqueue|requests|pending")
	}
	s.mu.Lock()
	srv := s.m[ts]
	s.mu.Unlock()
	if args[0] != "start" && srv == nil {
		ts.Fatalf("llm %s: no server; run 'llm start' first", args[0])
	}
	switch args[0] {
	case "start":
		// It lists one model, the default one, as GET /v1/models.
		opts := llmtest.Options{FamilyModel: DefaultModel}
		if len(args) > 1 {
			opts.APIKey = args[1]
		}
		srv = llmtest.NewServer(s.t, opts)
		srv.SetResponder(llmtest.Agent())
		s.mu.Lock()
		s.m[ts] = srv
		s.mu.Unlock()
		ts.Defer(func() {
			srv.Close()
			s.mu.Lock()
			delete(s.m, ts)
			s.mu.Unlock()
		})
		ts.Setenv("OPENAI_BASE_URL", srv.URL())
	case "enqueue":
		if len(args) < 2 {
			ts.Fatalf("usage: llm enqueue text <s> | 429 | 401 | 500 | quota | cut <s>")
		}
		arg := strings.Join(args[2:], " ")
		switch args[1] {
		case "text":
			srv.Enqueue(llmtest.Text(arg))
		case "429":
			srv.Enqueue(llmtest.RateLimited(time.Second))
		case "401":
			srv.Enqueue(llmtest.Unauthorized())
		case "500":
			srv.Enqueue(llmtest.ServerError())
		case "quota":
			srv.Enqueue(llmtest.QuotaExceeded())
		case "cut":
			srv.Enqueue(llmtest.CutAfter(llmtest.Text(arg), 2))
		case "hang":
			srv.Enqueue(llmtest.Hang())
		default:
			ts.Fatalf("llm enqueue: unknown reply %q", args[1])
		}
	case "requests":
		var b bytes.Buffer
		for i, r := range srv.Requests() {
			fmt.Fprintf(&b, "request %d status %d model %s tools %d\n", i+1, r.Status, r.Model, len(r.Tools))
			for _, m := range r.Messages {
				fmt.Fprintf(&b, "  %s", m.Role)
				if m.ToolCallID != "" {
					fmt.Fprintf(&b, " %s", m.ToolCallID)
				}
				// A resume's re-orientation packet, which follows the user's
				// words, is left out: the scripts follow the conversation,
				// internal/e2e/ctxwindow (TestPacketAfter…) checks the packet.
				content, _, _ := strings.Cut(m.Content, "\n\nRe-orientation (read from the session's records")
				fmt.Fprintf(&b, ": %s\n", termtext.Flatten(content, 100))
				for _, c := range m.ToolCalls {
					fmt.Fprintf(&b, "    call %s %s %s\n", c.ID, c.Name, c.Arguments)
				}
			}
		}
		ts.Stdout().Write(b.Bytes())
	case "tools":
		reqs := srv.Requests()
		if len(reqs) == 0 {
			ts.Fatalf("llm tools: no request yet")
		}
		var b bytes.Buffer
		for _, t := range reqs[len(reqs)-1].Tools {
			fmt.Fprintf(&b, "%s: %s\n", t.Name, strings.ReplaceAll(t.Description, "\n", " | "))
		}
		ts.Stdout().Write(b.Bytes())
	case "wait":
		n, err := strconv.Atoi(strings.Join(args[1:], ""))
		if err != nil {
			ts.Fatalf("usage: llm wait <n>")
		}
		// A minute is a safety net against a run that never asks, far
		// beyond what a loaded machine needs for one that does.
		for deadline := time.Now().Add(time.Minute); len(srv.Requests()) < n; {
			if time.Now().After(deadline) {
				ts.Fatalf("llm wait: %d requests after a minute, want %d", len(srv.Requests()), n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	case "pending":
		if len(args) != 2 {
			ts.Fatalf("usage: llm pending <n>")
		}
		if got := strconv.Itoa(srv.Pending()); got != args[1] {
			ts.Fatalf("llm pending: %s replies unused, want %s", got, args[1])
		}
	default:
		ts.Fatalf("llm: unknown subcommand %q", args[0])
	}
}
