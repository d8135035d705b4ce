package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// gate holds back the replies to requests whose last user message contains
// a marker until it is opened, so a test can keep one clawdcode process
// busy mid-turn for as long as it needs.
type gate struct {
	marker  string
	arrived chan struct{}
	open    chan struct{}
	once    sync.Once
}

func newGate(marker string) *gate {
	return &gate{marker: marker, arrived: make(chan struct{}, 16), open: make(chan struct{})}
}

func (g *gate) release() { g.once.Do(func() { close(g.open) }) }

// wrap answers with next, first waiting for the gate when the request
// carries the marker. The wait is bounded so a failing test cannot leave a
// handler behind.
func (g *gate) wrap(next func(llmtest.Request) llmtest.Reply) func(llmtest.Request) llmtest.Reply {
	return func(r llmtest.Request) llmtest.Reply {
		if lastUser(r) != "" && strings.Contains(lastUser(r), g.marker) {
			select {
			case g.arrived <- struct{}{}:
			default:
			}
			select {
			case <-g.open:
			case <-time.After(harness.RunTimeout):
			}
		}
		return next(r)
	}
}

func lastUser(r llmtest.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == chat.RoleUser {
			return r.Messages[i].Content
		}
	}
	return ""
}

func waitArrived(t *testing.T, g *gate) {
	t.Helper()
	select {
	case <-g.arrived:
	case <-time.After(harness.RunTimeout):
		t.Fatal("the first process never reached the server")
	}
}

func TestSecondProcessOnSameSessionIsRefused(t *testing.T) {
	w := newWorld(t, llmtest.Options{})
	g := newGate("step 2:")
	w.Server.SetResponder(g.wrap(threeRounds))
	flags := []string{"-p", "--dangerously-skip-permissions"}
	w.MustRun(append(flags, stepPrompt(1))...)
	id, path := w.onlySession()

	ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
	defer cancel()
	first := w.Command(ctx, append(append([]string{"-c"}, flags...), stepPrompt(2))...)
	var firstOut, firstErr bytes.Buffer
	first.Stdout, first.Stderr = &firstOut, &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	var firstErrv error
	done := make(chan struct{})
	go func() { firstErrv = first.Wait(); close(done) }()
	defer func() {
		g.release()
		<-done // bounded by ctx
	}()
	waitArrived(t, g)
	before := readFile(t, path)

	for _, args := range [][]string{
		append([]string{"-c"}, append(flags, "second writer via -c")...),
		append([]string{"-r", id}, append(flags, "second writer via -r")...),
		append([]string{"-r", id[:8]}, append(flags, "second writer via a prefix")...),
	} {
		r := w.Run(args...)
		if r.Code != 1 {
			t.Errorf("clawdcode %q while the session is open elsewhere: want exit 1\n%s", args, r)
		}
		if line := oneErrorLine(t, r); !strings.Contains(line, "open in another clawdcode process") || !strings.Contains(line, id) {
			t.Errorf("clawdcode %q: want an error naming session %s as open in another clawdcode process, got %q", args, id, line)
		}
		if !strings.Contains(r.Stderr, "without -c/-r") {
			t.Errorf("clawdcode %q: the hint does not offer a new session instead\n%s", args, r)
		}
	}
	if got := readFile(t, path); !bytes.Equal(got, before) {
		t.Errorf("the refused processes changed the session file:\nbefore %d bytes, after %d bytes", len(before), len(got))
	}
	r := w.Run("sessions", "rm", "--yes", id)
	if r.Code == 0 {
		t.Errorf("sessions rm of a session open in another process succeeded\n%s", r)
	}
	// Starting a new session is no answer to a refused removal.
	if strings.Contains(r.Stderr, "-c/-r") || !strings.Contains(r.Stderr, "end that process first") {
		t.Errorf("sessions rm of a busy session: the hint does not fit rm\n%s", r)
	}

	g.release()
	select {
	case <-done:
		if firstErrv != nil {
			t.Fatalf("the first process failed: %v\n%s\n%s", firstErrv, firstOut.String(), firstErr.String())
		}
	case <-time.After(harness.RunTimeout):
		t.Fatal("the first process did not finish")
	}

	p := parseSession(t, path)
	if len(p.bad) > 0 || p.tornTail {
		t.Fatalf("session file has unparsable lines %v (torn tail %v)", p.bad, p.tornTail)
	}
	checkChain(t, id, p.records)
	var users []string
	for _, rec := range p.records {
		if rec.Type == "user" && rec.Message != nil {
			users = append(users, rec.Message.Content)
		}
	}
	if want := []string{stepPrompt(1), stepPrompt(2)}; strings.Join(users, "|") != strings.Join(want, "|") {
		t.Errorf("user records %q, want exactly %q", users, want)
	}
	// Both steps ran to the end: three tool rounds and a final text each.
	if n := countType(p.records, "assistant"); n != 8 {
		t.Errorf("%d assistant records, want 8 (two steps of four model calls)", n)
	}
	if r := w.Run("sessions", "show", id); r.Code != 0 || r.Stderr != "" {
		t.Errorf("sessions show after the race\n%s", r)
	}
	w.MustRun("-c", "-p", "after the race")
}

func TestTwoNewSessionsConcurrently(t *testing.T) {
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(threeRounds)
	var wg sync.WaitGroup
	results := make([]result, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
			defer cancel()
			results[i] = harness.Wait(t, ctx, w.Command(ctx, "-p", "--dangerously-skip-permissions", stepPrompt(10+i)))
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.Code != 0 {
			t.Fatalf("process %d: want exit 0\n%s", i, r)
		}
	}
	files := w.sessionFiles()
	if len(files) != 2 {
		t.Fatalf("want two session files, have %v", files)
	}
	for id, path := range files {
		p := parseSession(t, path)
		if len(p.bad) > 0 || p.tornTail {
			t.Errorf("session %s: unparsable lines %v", id, p.bad)
		}
		checkChain(t, id, p.records)
		if n := countType(p.records, "user"); n != 1 {
			t.Errorf("session %s: %d user records, want 1 (no lines from the other process)", id, n)
		}
	}
	r := w.MustRun("sessions", "list", "--json")
	for id := range files {
		if !strings.Contains(r.Stdout, id) {
			t.Errorf("sessions list --json does not list %s\n%s", id, r)
		}
	}
}

func countType(recs []record, typ string) int {
	n := 0
	for _, r := range recs {
		if r.Type == typ && !r.IsCompactSummary {
			n++
		}
	}
	return n
}

// TestCollidingProjectsStartedTogether: four project paths that escape to
// the same directory name, each used for the first time at the same
// moment, must still end up in four directories, each session with its
// own project's cwd.
func TestCollidingProjectsStartedTogether(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(llmtest.Agent())
	var all []string
	for round := range 3 {
		base := filepath.Join(w.Root, "race", string(rune('a'+round)))
		paths := []string{base + " x", base + "-x", base + "_x", base + ".x"}
		all = append(all, paths...)
		for _, p := range paths {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		res := make([]result, len(paths))
		for i, p := range paths {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
				defer cancel()
				cmd := w.Command(ctx, "-p", "hello from "+p)
				cmd.Dir = p
				res[i] = harness.Wait(t, ctx, cmd)
			}()
		}
		wg.Wait()
		for i, r := range res {
			if r.Code != 0 {
				t.Errorf("%s: want exit 0\n%s", paths[i], r)
			}
		}
	}
	dirs, err := filepath.Glob(filepath.Join(w.projectsDir(), "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) != len(all) {
		t.Fatalf("%d project directories for %d project paths: %v", len(dirs), len(all), dirs)
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(d, "*.jsonl"))
		if len(files) != 1 {
			t.Errorf("%s holds %d sessions, want 1", d, len(files))
			continue
		}
		recs := parseSession(t, files[0]).records
		cwd := recs[0].Cwd
		for _, r := range recs {
			if r.Cwd != cwd {
				t.Errorf("%s mixes projects: cwd %q and %q", files[0], cwd, r.Cwd)
			}
		}
		if recs[0].Message == nil || recs[0].Message.Content != "hello from "+cwd {
			t.Errorf("%s (cwd %s) holds another project's prompt: %+v", files[0], cwd, recs[0].Message)
		}
		seen[cwd] = true
	}
	for _, p := range all {
		if !seen[p] {
			t.Errorf("no session directory records project %s", p)
		}
	}
}

// TestSimultaneousContinue: several `-c` started at the same instant race
// for one session. Each either runs or is refused as busy; whoever runs
// writes its turn as one unbroken run of lines.
func TestSimultaneousContinue(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	id, path := w.establish()
	// Hold every reply back a little so the racers overlap.
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		reply := threeRounds(r)
		reply.Delay = 150 * time.Millisecond
		return reply
	})
	const racers = 4
	var wg sync.WaitGroup
	results := make([]result, racers)
	start := make(chan struct{})
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
			defer cancel()
			cmd := w.Command(ctx, "-c", "-p", "--dangerously-skip-permissions", stepPrompt(10+i))
			<-start
			results[i] = harness.Wait(t, ctx, cmd)
		}()
	}
	close(start)
	wg.Wait()
	ran := 0
	for i, r := range results {
		switch r.Code {
		case 0:
			ran++
		case 1:
			if line := oneErrorLine(t, r); !strings.Contains(line, "open in another clawdcode process") {
				t.Errorf("racer %d: refused with %q, want the busy error", i, line)
			}
		default:
			t.Errorf("racer %d: want exit 0 or the busy error\n%s", i, r)
		}
	}
	if ran == 0 {
		t.Fatal("no racer ran")
	}
	p := parseSession(t, path)
	if len(p.bad) > 0 || p.tornTail {
		t.Fatalf("unparsable lines %v (torn tail %v)", p.bad, p.tornTail)
	}
	checkChain(t, id, p.records)
	// Every step's records are contiguous: between a step's user record
	// and the next user record, every tool call names that step's file.
	steps := 0
	current := ""
	for _, r := range p.records {
		if r.Type == "user" && r.Message != nil {
			var n int
			if _, err := fmt.Sscanf(r.Message.Content, "step %d:", &n); err == nil {
				current = fmt.Sprintf("s%d.txt", n)
				steps++
			}
			continue
		}
		if r.Type == "tool_use" && r.Tool != nil && r.Tool.Name != "Bash" && !strings.Contains(string(r.Tool.Input), current) {
			t.Errorf("a %s call on %s sits inside the turn of %s: interleaved lines", r.Tool.Name, r.Tool.Input, current)
		}
	}
	if steps != 1+ran {
		t.Errorf("%d step prompts recorded, want %d (the first and one per racer that ran)", steps, 1+ran)
	}
	t.Logf("%d of %d racers ran", ran, racers)
}
