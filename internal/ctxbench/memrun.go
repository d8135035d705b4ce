package ctxbench

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// memResult is what one project of the multi-session corpus measured.
type memResult struct {
	carried, carriedPresent int // memories the next session must get, and those its first request holds
	stale, staleWithheld    int // memories naming what was removed, and those its first request lacks
	leaks                   int // the project's memories in another project's first request
	early                   int // suggestions in a request before the user accepted them
	wall, cpu               time.Duration
}

// watch counts the suggestions not accepted yet that reach a request:
// each request's text is folded once and searched for every pending one.
type watch struct {
	mu      sync.Mutex
	pending []string
	sent    map[string]bool
}

func (w *watch) set(pending ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = pending
}

func (w *watch) see(q llmtest.Request) {
	text := llmtest.RequestText(q)
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.pending {
		if llmtest.Holds(text, s) {
			w.sent[s] = true
		}
	}
}

// runMemProject plays p's two sessions through the real binary, as a
// user would, and probes the first request of the second session and of
// a new session of another project (a copy of p's tree elsewhere, so
// that no memory of p would be stale there).
func runMemProject(t *testing.T, cfg config, p *memProject) memResult {
	w := harness.NewWorld(t, llmtest.Options{Window: cfg.window, Tokens: llmtest.OpenAITokens, PromptCache: true, Light: true})
	w.Timeout = 2 * time.Minute
	writeTree(t, w.Project, p.files)
	r := &runner{t: t, w: w, s: &session{name: p.name}, cfg: cfg, summaris: llmtest.Summariser(cfg.mode, nil)}
	r.res = sessionResult{probes: map[int]probeResult{}}
	w.Server.SetResponder(r.respond)
	seen := &watch{sent: map[string]bool{}}

	// The first session: the task, the memories the user types, a second
	// task (the suggestions now wait), then the user accepts one.
	r.task(task{prompt: p.prompt, replies: p.replies})
	for _, text := range p.typed {
		w.MustRun("-p", "/memory add "+text)
	}
	seen.set(p.accept, p.pending)
	r.run(script(llmtest.Text("Nothing else to note.")), seen.see, true, "-r", r.id, "-p", "Anything else before I stop?")
	if n := suggestionNumber(w.MustRun("-p", "/memory").Stdout, p.accept); n > 0 {
		w.MustRun("-p", "/memory accept "+strconv.Itoa(n))
	} else {
		t.Logf("project %s: %q is not among the suggestions /memory lists", p.name, p.accept)
	}
	seen.set(p.pending)

	// The project changes; a new session of it, and of another project.
	p.change(t, w.Project)
	next := r.firstRequest(p, seen)
	other := filepath.Join(w.Root, "other-"+p.name)
	writeTree(t, other, p.files)
	p.change(t, other)
	r.dir = other
	elsewhere := r.firstRequest(p, seen)

	res := memResult{carried: len(p.carried), stale: len(p.stale), wall: r.res.wall, cpu: r.res.cpu}
	for _, text := range p.carried {
		if next[text] {
			res.carriedPresent++
		}
	}
	for _, text := range p.stale {
		if !next[text] {
			res.staleWithheld++
		}
	}
	res.leaks = len(elsewhere)
	res.early = len(seen.sent)
	return res
}

// change makes the project's tree at dir what the second session finds.
func (p *memProject) change(t *testing.T, dir string) {
	t.Helper()
	for _, rel := range p.removed {
		if err := os.Remove(filepath.Join(dir, rel)); err != nil {
			t.Fatal(err)
		}
	}
	writeTree(t, dir, p.after)
}

// firstRequest starts a new session where r runs and returns the
// memories of p its first request holds (the probe answers it).
func (r *runner) firstRequest(p *memProject, seen *watch) map[string]bool {
	obj, _ := r.run(llmtest.Probe(p.memFacts()), seen.see, false, "-p", probePrompt)
	keys, ok := llmtest.ParseProbe(obj.Result)
	if !ok {
		r.t.Fatalf("project %s: the probe's run did not answer with the probe: %q", p.name, obj.Result)
	}
	return keys
}

// script plays replies in order, then "Done.".
func script(replies ...llmtest.Reply) func(llmtest.Request) llmtest.Reply {
	var mu sync.Mutex
	return func(llmtest.Request) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if len(replies) == 0 {
			return llmtest.Text("Done.")
		}
		next := replies[0]
		replies = replies[1:]
		return next
	}
}

// writeTree writes files (relative paths) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
