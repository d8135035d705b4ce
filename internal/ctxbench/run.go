package ctxbench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// config is one row of the table: the build of clawdcode it runs, the
// window clawdcode and the server share, and the summariser the server
// plays.
type config struct {
	build    build
	window   int
	mode     llmtest.SummaryMode
	delegate bool // the delegation suite's row whose tasks delegate through Task
	// served says the window is the server's to report (vLLM's /models
	// max_model_len, CONTRACT §8) for a model the models table does not
	// know, with no --context-window: what a user of a local server has.
	served bool
}

// servedModel is the model of a served row: a local model the models
// table does not know, so clawdcode asks the server for its window.
const servedModel = "qwen2.5-coder-local"

// threshold is the auto-compaction trigger the bench passes (clawdcode's
// default, stated so that a change of the default is not a change of the
// bench).
const threshold = "0.8"

// milestones are the compaction counts after which the probe runs.
var milestones = []int{1, 5, 10}

// probeResult is what one probe found: by class the facts planted so far,
// those present and those available (present, or one Recall of a ref the
// request holds away), and by artifact kind the facts of the compacted
// range (tasks whose prompt is no longer a message of its own) planted and
// present.
type probeResult struct {
	planted, present, available map[string]int
	rangePlanted, rangePresent  map[string]int
}

func newProbeResult() probeResult {
	return probeResult{planted: map[string]int{}, present: map[string]int{}, available: map[string]int{},
		rangePlanted: map[string]int{}, rangePresent: map[string]int{}}
}

// sessionResult is what one session measured. finished counts the tasks
// whose run exited 0 with a final answer; end is the probe after the last
// task, whatever the compactions.
type sessionResult struct {
	tasks, finished, agentRequests, summaries, rejected int
	prompt, cached, completion                          int
	fresh                                               int // prompt tokens no cache could serve (llmtest.Request.FreshTokens)
	compactions                                         int
	subRequests, subPrompt, subCached                   int // a subagent's, part of the above
	probes                                              map[int]probeResult
	end                                                 probeResult
	reorient, cold                                      int // -1: the edit was never made
	violated                                            bool
	wall, cpu                                           time.Duration
}

// runner drives one session through the real binary.
type runner struct {
	t   *testing.T
	w   *harness.World
	s   *session
	cfg config
	id  string // the session id, after the first task
	dir string // where a run starts; "": the world's project

	mu        sync.Mutex
	subPrompt string // the Task prompt of the task under way ("": none)
	subActive bool   // a subagent has asked and not given its final answer
	behave    func(llmtest.Request) llmtest.Reply
	onReq     func(llmtest.Request)
	seen      int // server requests already accounted
	res       sessionResult
	summaris  func(llmtest.Request) llmtest.Reply
}

func runSession(t *testing.T, cfg config, s *session) sessionResult {
	opts := llmtest.Options{Window: cfg.window, Tokens: llmtest.OpenAITokens, PromptCache: true, Light: os.Getenv("CTXBENCH_DEBUG") == ""}
	if cfg.served {
		opts.Family, opts.FamilyModel = llmtest.FamilyVLLM, servedModel
	}
	w := harness.NewWorld(t, opts)
	w.Timeout = 2 * time.Minute
	if cfg.build.binary != "" {
		w.Binary = cfg.build.binary
	}
	writeTree(t, w.Project, s.files)
	r := &runner{t: t, w: w, s: s, cfg: cfg, summaris: llmtest.Summariser(cfg.mode, s.facts)}
	r.res = sessionResult{probes: map[int]probeResult{}, reorient: -1, cold: -1}
	w.Server.SetResponder(r.respond)
	if src := s.source; src != nil {
		home := filepath.Join(w.Root, src.tool)
		harness.InstallSource(t, src.fixture, home, src.rel, w.Project)
		w.ExtraEnv = []string{src.envVar + "=" + home}
		w.MustRun("import", src.tool)
		r.id = src.id
	}
	for i, tk := range s.tasks {
		r.task(tk)
		for _, m := range milestones {
			if _, done := r.res.probes[m]; !done && r.res.compactions >= m {
				r.res.probes[m] = r.probe(i)
			}
		}
	}
	r.res.tasks = len(s.tasks)
	r.res.end = r.probe(len(s.tasks) - 1)
	r.res.reorient = r.reorientCost(true)
	r.res.cold = r.reorientCost(false)
	r.res.violated = r.violate()
	return r.res
}

// respond answers summarisation calls with the summariser and every other
// request with the behaviour of the run under way, and counts the reply's
// tokens as the server reports them.
func (r *runner) respond(req llmtest.Request) llmtest.Reply {
	r.mu.Lock()
	behave, onReq := r.behave, r.onReq
	r.mu.Unlock()
	var reply llmtest.Reply
	sub := r.fromSubagent(req)
	if llmtest.IsSummaryRequest(req) {
		r.mu.Lock()
		r.res.summaries++
		r.mu.Unlock()
		reply = r.summaris(req)
	} else {
		if onReq != nil && !sub {
			onReq(req)
		}
		reply = behave(req)
	}
	if sub {
		r.mu.Lock()
		r.res.subRequests++
		r.res.subPrompt += req.Tokens
		r.res.subCached += req.CachedTokens
		if !llmtest.IsSummaryRequest(req) {
			r.subActive = len(reply.ToolCalls) > 0
		}
		r.mu.Unlock()
	}
	if reply.Status == 0 {
		n := len(reply.Text)
		for _, c := range reply.ToolCalls {
			n += len(c.Name) + len(c.Arguments)
		}
		r.mu.Lock()
		r.res.completion += max(1, (n+3)/4)
		r.mu.Unlock()
	}
	return reply
}

// fromSubagent reports whether req is a subagent's: an agent request
// whose user message is the Task prompt of the task under way (a
// subagent starts from that prompt, not from the parent's conversation),
// or a summary asked while a subagent runs (the parent waits for its Task
// result meanwhile).
func (r *runner) fromSubagent(req llmtest.Request) bool {
	r.mu.Lock()
	prompt, active := r.subPrompt, r.subActive
	r.mu.Unlock()
	if prompt == "" {
		return false
	}
	if llmtest.IsSummaryRequest(req) {
		return active
	}
	for _, m := range req.Messages {
		if m.Role == "user" && strings.Contains(m.Content, prompt) {
			return true
		}
	}
	return false
}

// run runs clawdcode once with behave answering; counted says whether its
// requests go into the cost figures. It returns the result object and
// whether the run finished: exited 0 with a final answer. A run still
// going at the world's timeout (a loop of compactions on a small window)
// is killed and has not finished; the session goes on from what it stored.
func (r *runner) run(behave func(llmtest.Request) llmtest.Reply, onReq func(llmtest.Request), counted bool, args ...string) (harness.ResultObject, bool) {
	r.mu.Lock()
	r.behave, r.onReq = behave, onReq
	r.mu.Unlock()
	window := []string{"--context-window", strconv.Itoa(r.cfg.window)}
	if r.cfg.served {
		window = []string{"-m", servedModel}
	}
	args = append(args, "--output-format", "json")
	args = append(append(args, window...), "--compact-threshold", threshold, "--dangerously-skip-permissions")
	ctx, cancel := context.WithTimeout(context.Background(), r.w.Timeout)
	defer cancel()
	cmd := r.w.Command(ctx, args...)
	if r.dir != "" {
		cmd.Dir = r.dir
	}
	start := time.Now()
	res, err := harness.Run(cmd)
	if err != nil && cmd.ProcessState == nil {
		r.t.Fatalf("session %s: run clawdcode %q: %v", r.s.name, args, err)
	}
	if counted {
		r.res.wall += time.Since(start)
		if u, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.res.cpu += time.Duration(u.Utime.Nano() + u.Stime.Nano())
		}
	}
	if ctx.Err() != nil {
		r.t.Logf("session %s: clawdcode %q did not finish within %s", r.s.name, args, r.w.Timeout)
		r.account(counted)
		return harness.ResultObject{}, false
	}
	var obj harness.ResultObject
	if err := json.Unmarshal([]byte(strings.TrimSpace(res.Stdout)), &obj); err != nil {
		r.t.Fatalf("session %s: clawdcode %q: stdout is not one result object: %v\n%s", r.s.name, args, err, res)
	}
	r.account(counted)
	return obj, res.Code == 0 && !obj.IsError && strings.TrimSpace(obj.Result) != ""
}

// debugRejected tells, under CTXBENCH_DEBUG (which also keeps the
// requests' messages), which request of a run the server refused: its
// place in the run, its size, and how its system prompt and first message
// begin — enough to tell a summary call from an agent request after a
// compaction.
func debugRejected(i, of int, q llmtest.Request) {
	if os.Getenv("CTXBENCH_DEBUG") == "" {
		return
	}
	var head [2]string
	for j := range min(len(q.Messages), 2) {
		head[j] = q.Messages[j].Content
	}
	fmt.Fprintf(os.Stderr, "rejected request %d of %d of a run: status %d, %d messages, %d tokens, system %.40q, then %.60q\n",
		i+1, of, q.Status, len(q.Messages), q.Tokens, head[0], head[1])
}

// account adds the server's requests since the last call to the figures
// (when counted).
func (r *runner) account(counted bool) {
	reqs := r.w.Server.Requests()
	fresh := reqs[r.seen:]
	r.seen = len(reqs)
	if !counted {
		return
	}
	for qi, q := range fresh {
		if q.Status != 200 {
			r.res.rejected++
			debugRejected(qi, len(fresh), q)
		}
		if q.Status == 0 {
			continue
		}
		r.res.prompt += q.Tokens
		r.res.cached += q.CachedTokens
		r.res.fresh += q.FreshTokens
		if q.FreshTokens == 0 && q.CachedTokens == 0 {
			r.res.fresh += q.Tokens // refused before the meter saw it
		}
	}
}

// task runs one user turn: the scripted agent plays its replies in order.
func (r *runner) task(tk task) {
	onReq := func(llmtest.Request) {
		r.mu.Lock()
		r.res.agentRequests++
		r.mu.Unlock()
	}
	args := []string{"-p", tk.prompt}
	if r.id != "" {
		args = append([]string{"-r", r.id}, args...)
	}
	behave := script(tk.replies...)
	if tk.sub != nil {
		behave = r.delegating(tk)
		defer func() {
			r.mu.Lock()
			r.subPrompt, r.subActive = "", false
			r.mu.Unlock()
		}()
	}
	obj, finished := r.run(behave, onReq, true, args...)
	if finished {
		r.res.finished++
	} else {
		r.t.Logf("session %s: a task did not finish: %s", r.s.name, obj.Result)
	}
	if r.id == "" {
		r.id = obj.SessionID
	}
	if obj.Compactions != nil {
		r.res.compactions += *obj.Compactions
	}
}

// delegating answers the parent with the task's replies and its subagent
// (see fromSubagent) with the delegation's.
func (r *runner) delegating(tk task) func(llmtest.Request) llmtest.Reply {
	r.mu.Lock()
	r.subPrompt = tk.sub.prompt
	r.mu.Unlock()
	parent, sub := script(tk.replies...), script(tk.sub.replies...)
	return func(q llmtest.Request) llmtest.Reply {
		if r.fromSubagent(q) {
			return sub(q)
		}
		return parent(q)
	}
}
