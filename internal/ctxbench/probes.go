package ctxbench

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// probePrompt is the probe's user message: a fork of the session is asked,
// so the session itself never sees the probe.
const probePrompt = "PROBE: which of the planted facts do you hold?"

// probe forks the session after task done (an index into s.tasks) and
// asks the probe which facts planted so far its request holds, and counts
// those available to it (in the request, or one Recall of a ref it holds
// away; see available).
func (r *runner) probe(done int) probeResult {
	var facts []llmtest.Fact
	inRange := map[string]bool{} // keys of facts whose task was compacted away
	var mu sync.Mutex
	var seen llmtest.Request
	capture := func(q llmtest.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen = q
	}
	for _, tk := range r.s.tasks[:done+1] {
		for _, i := range tk.facts {
			f := r.s.facts[i]
			if f.Class == llmtest.FactContinuation && i != r.s.tasks[done].next {
				continue // only what comes next now counts
			}
			facts = append(facts, f)
		}
	}
	obj, finished := r.run(llmtest.Probe(facts), capture, false, "-r", r.id, "--fork-session", "-p", probePrompt)
	keys, ok := llmtest.ParseProbe(obj.Result)
	if !ok && finished {
		r.t.Fatalf("session %s: the probe's run did not answer with the probe: %q", r.s.name, obj.Result)
	}
	mu.Lock()
	open, err := sessionOpener(r.w.Home, r.w.Project, obj.SessionID)
	if err != nil {
		r.t.Fatalf("session %s: open the probe's session for Recall: %v", r.s.name, err)
	}
	avail := available(llmtest.RequestText(seen), facts, open)
	for _, tk := range r.s.tasks[:done+1] {
		if !retained(seen, tk.prompt) {
			for _, i := range tk.facts {
				inRange[r.s.facts[i].Key] = true
			}
		}
	}
	mu.Unlock()
	p := newProbeResult()
	for _, f := range facts {
		class := string(f.Class)
		p.planted[class]++
		if keys[f.Key] {
			p.present[class]++
		}
		if avail[f.Key] {
			p.available[class]++
		}
		if f.Class == llmtest.FactArtifact && inRange[f.Key] {
			p.rangePlanted[f.Kind]++
			if keys[f.Key] {
				p.rangePresent[f.Kind]++
			}
		}
	}
	return p
}

// retained reports whether the prompt of a task is still a user message of
// its own in q (not compacted away; a summary quoting it does not count).
func retained(q llmtest.Request, prompt string) bool {
	for _, m := range q.Messages {
		if m.Role == "user" && m.Content == prompt {
			return true
		}
	}
	return false
}

// reorientCost runs the re-orienter on the session's final state (a fork,
// when warm) or in a new session of the same project (cold), and returns
// how many calls it made before its first edit, -1 when it never edited.
func (r *runner) reorientCost(warm bool) int {
	ro := r.s.reorient
	cost := -1
	var mu sync.Mutex
	measure := func(q llmtest.Request) {
		mu.Lock()
		defer mu.Unlock()
		if n := llmtest.ReorientCalls(q, ro.edit.Name); n >= 0 && cost < 0 {
			cost = n
		}
	}
	args := []string{"-p", ro.prompt}
	if warm {
		args = append([]string{"-r", r.id, "--fork-session"}, args...)
	}
	r.run(giveUp(llmtest.Reorienter(ro.needs, ro.edit, "Edited."), maxReorientRequests), measure, false, args...)
	mu.Lock()
	defer mu.Unlock()
	return cost
}

// maxReorientRequests bounds the re-orienter's requests in one run: it
// needs at most one per fetch, the edit and the answer, but a compaction
// that takes its calls out of the request makes it start its fetches
// over, and on a small window that can go on until the run is killed.
const maxReorientRequests = 20

// giveUp is behave until it has answered n requests, then an answer that
// ends the run.
func giveUp(behave func(llmtest.Request) llmtest.Reply, n int) func(llmtest.Request) llmtest.Reply {
	var mu sync.Mutex
	return func(q llmtest.Request) llmtest.Reply {
		mu.Lock()
		n--
		over := n < 0
		mu.Unlock()
		if over {
			return llmtest.Text("Gave up: I could not find what I need.")
		}
		return behave(q)
	}
}

// violate runs the violator on a fork of the session's final state and
// reports whether it did what the user forbade (the file its command
// creates exists).
func (r *runner) violate() bool {
	r.run(llmtest.Violator(r.s.ruleKey, r.s.ruleCall, "Refused: the user forbade that.", "Done."), nil, false,
		"-r", r.id, "--fork-session", "-p", "Finish the release step now.")
	_, err := os.Stat(filepath.Join(r.w.Project, r.s.ruleFlag))
	return err == nil
}
