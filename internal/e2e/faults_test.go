package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// quickRateLimit is a 429 that asks for a 20 ms wait (OpenAI's
// retry-after-ms), so a burst costs the test almost nothing.
func quickRateLimit() llmtest.Reply {
	r := llmtest.RateLimited(0)
	r.Header = http.Header{"Retry-After-Ms": {"20"}}
	return r
}

// quickServerError is a 500 that asks for a 20 ms wait.
func quickServerError() llmtest.Reply {
	r := llmtest.ServerError()
	r.Header = http.Header{"Retry-After-Ms": {"20"}}
	return r
}

func quickCut(r llmtest.Reply, n int) llmtest.Reply {
	r = llmtest.CutAfter(r, n)
	r.Header = http.Header{"Retry-After-Ms": {"20"}}
	return r
}

// htmlReply is what a proxy or captive portal sends instead of the API.
func htmlReply(status int) llmtest.Reply {
	return llmtest.Reply{
		Status: status,
		Body:   "<html><body><h1>Bad Gateway</h1>Please sign in to the proxy.</body></html>",
		Header: http.Header{"Content-Type": {"text/html"}, "Retry-After-Ms": {"10"}},
	}
}

const cutArgs = `{"file_path":"cut.txt","content":"the whole content, which arrives in several pieces"}`

// establish starts a session with one ordinary step, so each fault hits a
// session that already has history to keep intact.
func (w *world) establish(flags ...string) (id, path string) {
	w.T.Helper()
	w.Server.SetResponder(threeRounds)
	w.MustRun(append([]string{"-p", "--dangerously-skip-permissions"}, append(flags, stepPrompt(1))...)...)
	return w.onlySession()
}

// checkHealthy asserts the session survived: every line parses, the chain
// holds, it loads without a warning, and -c continues it with requests the
// strict server accepts.
func (w *world) checkHealthy(id, path string) []record {
	w.T.Helper()
	t := w.T
	p := parseSession(t, path)
	if len(p.bad) > 0 || p.tornTail {
		t.Errorf("session file has unparsable lines %v (torn tail %v)", p.bad, p.tornTail)
	}
	checkChain(t, id, p.records)
	if r := w.Run("sessions", "show", id); r.Code != 0 || strings.TrimSpace(r.Stderr) != "" {
		t.Errorf("sessions show %s: want exit 0 and nothing on stderr\n%s", id, r)
	}
	mark := len(w.Server.Requests())
	w.Server.SetResponder(threeRounds)
	obj, r := w.printJSON("-c", "-p", "--dangerously-skip-permissions", "continue")
	if r.Code != 0 || obj.IsError || obj.SessionID != id {
		t.Errorf("-c after the fault: want success on session %s\n%s", id, r)
	}
	for _, req := range w.Server.Requests()[mark:] {
		if req.Status != http.StatusOK {
			t.Errorf("-c after the fault sent a request the server rejected: %d %s", req.Status, req.Error)
		}
	}
	return p.records
}

func TestServerFaults(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		replies []llmtest.Reply
		// wantErr, when set, is a phrase the one error line must contain
		// (exit 1); otherwise the run must succeed with wantAnswer.
		wantErr    string
		wantAnswer string
		// wantRequests is how many completion requests the run makes.
		wantRequests int
		check        func(t *testing.T, w *world, recs []record, reqs []llmtest.Request)
	}{
		{
			name:         "429 burst then success",
			replies:      []llmtest.Reply{quickRateLimit(), quickRateLimit(), quickRateLimit(), llmtest.Text("after the burst")},
			wantAnswer:   "after the burst",
			wantRequests: 4,
		},
		{
			name:         "429 burst longer than the retries",
			replies:      []llmtest.Reply{quickRateLimit(), quickRateLimit(), quickRateLimit(), quickRateLimit()},
			wantErr:      "rate limit",
			wantRequests: 4,
		},
		{
			name: "429 with Retry-After seconds then success",
			replies: []llmtest.Reply{
				llmtest.RateLimited(time.Second), llmtest.Text("after waiting"),
			},
			wantAnswer:   "after waiting",
			wantRequests: 2,
		},
		{
			name:         "500s then success",
			replies:      []llmtest.Reply{quickServerError(), quickServerError(), llmtest.Text("after the 500s")},
			wantAnswer:   "after the 500s",
			wantRequests: 3,
		},
		{
			name:         "500 with the default backoff then success",
			replies:      []llmtest.Reply{llmtest.ServerError(), llmtest.Text("after one 500")},
			wantAnswer:   "after one 500",
			wantRequests: 2,
		},
		{
			name: "stream cut mid tool call then success",
			replies: []llmtest.Reply{
				quickCut(llmtest.ToolCalls(llmtest.Call("Write", cutArgs)), 3),
				llmtest.ToolCalls(llmtest.Call("Write", cutArgs)),
				llmtest.Text("written after the cut"),
			},
			wantAnswer:   "written after the cut",
			wantRequests: 3,
			check: func(t *testing.T, w *world, recs []record, _ []llmtest.Request) {
				if n := countToolOn(recs, "Write", "cut.txt"); n != 1 {
					t.Errorf("%d Write tool_use records, want 1: the cut call must not be recorded", n)
				}
				b, err := os.ReadFile(filepath.Join(w.Project, "cut.txt"))
				if err != nil || !strings.Contains(string(b), "the whole content") {
					t.Errorf("cut.txt = %q, %v; want the complete content written once", b, err)
				}
			},
		},
		{
			name: "stream cut mid tool call on every attempt",
			replies: []llmtest.Reply{
				quickCut(llmtest.ToolCalls(llmtest.Call("Write", cutArgs)), 3),
				quickCut(llmtest.ToolCalls(llmtest.Call("Write", cutArgs)), 3),
				quickCut(llmtest.ToolCalls(llmtest.Call("Write", cutArgs)), 3),
				quickCut(llmtest.ToolCalls(llmtest.Call("Write", cutArgs)), 3),
			},
			wantErr:      "cut",
			wantRequests: 4,
			check: func(t *testing.T, w *world, recs []record, _ []llmtest.Request) {
				if n := countToolOn(recs, "Write", "cut.txt"); n != 0 {
					t.Errorf("%d Write tool_use records from a stream that never finished", n)
				}
				if _, err := os.Stat(filepath.Join(w.Project, "cut.txt")); err == nil {
					t.Errorf("cut.txt exists: a half-received tool call was run")
				}
			},
		},
		{
			name:         "text shown then the stream breaks",
			replies:      []llmtest.Reply{llmtest.MidStreamError(llmtest.Text("this partial answer is never finished by the server"), 4)},
			wantErr:      "server error",
			wantRequests: 1,
		},
		{
			name: "malformed tool-call arguments",
			replies: []llmtest.Reply{
				llmtest.ToolCalls(llmtest.Call("Write", `{"file_path": "bad.txt", "content": "never closed`)),
				llmtest.Text("recovered from bad arguments"),
			},
			wantAnswer:   "recovered from bad arguments",
			wantRequests: 2,
			check: func(t *testing.T, w *world, recs []record, reqs []llmtest.Request) {
				if _, err := os.Stat(filepath.Join(w.Project, "bad.txt")); err == nil {
					t.Errorf("bad.txt exists: a call with malformed arguments was run")
				}
				last := reqs[len(reqs)-1].Messages
				tool := last[len(last)-1]
				if tool.Role != chat.RoleTool || tool.Content == "" {
					t.Fatalf("the model was not sent a tool result for the malformed call: last message %+v", tool)
				}
				t.Logf("tool result sent to the model: %q", tool.Content)

				var res *harness.RecordResult
				for _, r := range recs {
					if r.Type == "tool_result" && r.ToolResult != nil && r.ToolResult.ID == tool.ToolCallID {
						res = r.ToolResult
					}
				}
				if res == nil || res.Error == "" {
					t.Errorf("the tool_result record of the malformed call carries no error: %+v", res)
				}
			},
		},
		{
			name:         "401",
			replies:      []llmtest.Reply{llmtest.Unauthorized()},
			wantErr:      "OPENAI_API_KEY",
			wantRequests: 1,
		},
		{
			name:         "a proxy's HTML 502 on every attempt",
			replies:      []llmtest.Reply{htmlReply(502), htmlReply(502), htmlReply(502), htmlReply(502)},
			wantErr:      "502",
			wantRequests: 4,
		},
		{
			// Not "stream cut": the answer never was a stream, and the
			// same URL gives the same page again, so it is not retried.
			name:         "a proxy's HTML page with status 200",
			replies:      []llmtest.Reply{htmlReply(200)},
			wantErr:      "the server answered 200 OK with an HTML page, not an OpenAI-compatible API's answer",
			wantRequests: 1,
		},
		{
			name:         "404 from a wrong base path is not retried",
			replies:      []llmtest.Reply{{Status: 404, Body: "404 page not found"}},
			wantErr:      "404",
			wantRequests: 1,
		},
		{
			name:         "insufficient quota is not retried",
			replies:      []llmtest.Reply{llmtest.QuotaExceeded()},
			wantErr:      "quota",
			wantRequests: 1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, llmtest.Options{})
			id, path := w.establish()
			mark := len(w.Server.Requests())
			w.Server.Enqueue(tc.replies...)
			r := w.Run("-c", "-p", "--dangerously-skip-permissions", "the faulty turn")
			reqs := w.Server.Requests()
			if got := len(reqs) - mark; got != tc.wantRequests {
				t.Errorf("%d requests, want %d", got, tc.wantRequests)
			}
			if tc.wantErr != "" {
				if r.Code != 1 {
					t.Errorf("want exit 1\n%s", r)
				}
				if line := oneErrorLine(t, r); !strings.Contains(strings.ToLower(line), strings.ToLower(tc.wantErr)) {
					t.Errorf("error line %q does not mention %q", line, tc.wantErr)
				}
			} else if r.Code != 0 || strings.TrimSpace(r.Stdout) != tc.wantAnswer {
				t.Errorf("want exit 0 and the answer %q\n%s", tc.wantAnswer, r)
			}
			w.Server.SetResponder(nil)
			recs := parseSession(t, path).records
			if tc.check != nil {
				tc.check(t, w, recs, reqs[mark:])
			}
			w.checkHealthy(id, path)
		})
	}
}

// countToolOn counts the tool_use records of a tool whose input mentions
// a word (a file name).
func countToolOn(recs []record, name, word string) int {
	n := 0
	for _, r := range recs {
		if r.Type == "tool_use" && r.Tool != nil && r.Tool.Name == name && strings.Contains(string(r.Tool.Input), word) {
			n++
		}
	}
	return n
}

// TestInterruptWhileServerHangs: SIGINT or SIGTERM during a request the
// server never answers ends the run with 130 and leaves the session
// resumable.
func TestInterruptWhileServerHangs(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, llmtest.Options{})
			id, path := w.establish()
			mark := len(w.Server.Requests())
			w.Server.Enqueue(llmtest.Hang())
			ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
			defer cancel()
			cmd := w.Command(ctx, "-c", "-p", "this request hangs")
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for len(w.Server.Requests()) == mark && ctx.Err() == nil {
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond) // let it settle into waiting for the headers
			start := time.Now()
			_ = cmd.Process.Signal(sig)
			err := cmd.Wait()
			r := result{Stdout: stdout.String(), Stderr: stderr.String(), Code: cmd.ProcessState.ExitCode()}
			if ctx.Err() != nil {
				t.Fatalf("%v did not end the run: %v\n%s", sig, err, r)
			}
			if r.Code != 130 {
				t.Errorf("%v during a hanging request: want exit 130\n%s", sig, r)
			}
			// A safety net, not a measure: the server never answers.
			if d := time.Since(start); d > time.Minute {
				t.Errorf("%v took %v to end the run", sig, d)
			}
			w.checkHealthy(id, path)
		})
	}
}

// TestServerThatHangsTimesOut: a server that accepts the request and never
// answers must end the run with a clear error in bounded time. With
// CLAWDCODE_TIMEOUT=1s an idle attempt is retried once at most, so the run
// ends after about two seconds; the error names the timeout.
func TestServerThatHangsTimesOut(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	id, path := w.establish()
	w.ExtraEnv = append(w.ExtraEnv, "CLAWDCODE_TIMEOUT=1s")
	// Two hangs: the idle timeout is retried once at most.
	w.Server.Enqueue(llmtest.Hang(), llmtest.Hang())
	mark := len(w.Server.Requests())
	ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
	defer cancel()
	start := time.Now()
	r := harness.Wait(t, ctx, w.Command(ctx, "-c", "-p", "this request hangs"))
	// A safety net, not a measure: without the idle timeout the run
	// would wait for as long as a reply may last (30 minutes).
	if d := time.Since(start); d > 2*time.Minute {
		t.Errorf("a 1 s idle timeout took %v to end the run", d)
	}
	if r.Code != 1 {
		t.Errorf("want exit 1\n%s", r)
	}
	if line := oneErrorLine(t, r); !strings.Contains(line, "no response from the server within 1s") {
		t.Errorf("the error does not name the 1 s idle timeout: %q", line)
	}
	if !strings.Contains(r.Stderr, "CLAWDCODE_TIMEOUT") {
		t.Errorf("no hint names CLAWDCODE_TIMEOUT\n%s", r)
	}
	if n := len(w.Server.Requests()) - mark; n != 2 {
		t.Errorf("%d attempts against a hanging server, want 2 (one retry)", n)
	}
	if p := w.Server.Pending(); p != 0 {
		t.Fatalf("%d hangs left queued", p)
	}
	w.ExtraEnv = nil
	w.checkHealthy(id, path)
}

// TestInterruptDuringBash: SIGINT while a Bash command runs ends the run
// with 130, kills the command's process group (its delayed side effect
// never happens), and leaves a session -c continues with a valid request.
func TestInterruptDuringBash(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	id, path := w.establish()
	// The command says its process group (its pid: the Bash tool starts
	// each command as a group's leader) before it sleeps.
	w.Server.Enqueue(llmtest.ToolCalls(call("Bash", map[string]any{"command": "echo $$ > started; sleep 300; touch late-marker"})))
	ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
	defer cancel()
	cmd := w.Command(ctx, "-c", "-p", "--dangerously-skip-permissions", "run the slow command")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid, _ := strconv.Atoi(harness.WaitLine(filepath.Join(w.Project, "started"), harness.RunTimeout))
	if pgid == 0 {
		t.Fatal("the Bash command never started")
	}
	defer syscall.Kill(-pgid, syscall.SIGKILL) // whatever happens, no sleep outlives the test
	_ = cmd.Process.Signal(syscall.SIGINT)
	_ = cmd.Wait()
	r := result{Stdout: stdout.String(), Stderr: stderr.String(), Code: cmd.ProcessState.ExitCode()}
	if ctx.Err() != nil {
		t.Fatalf("SIGINT did not end the run\n%s", r)
	}
	if r.Code != 130 {
		t.Errorf("SIGINT during Bash: want exit 130\n%s", r)
	}
	// The group's end is the event waited for (a minute the safety net),
	// not a time past the command's own sleep.
	if !harness.GroupGone(pgid, time.Minute) {
		t.Errorf("the Bash command's group %d kept running after the interrupt", pgid)
	}
	if _, err := os.Stat(filepath.Join(w.Project, "late-marker")); err == nil {
		t.Errorf("the Bash command kept running after the interrupt (late-marker exists)")
	}
	w.checkHealthy(id, path)
}

// TestServerWindowSmallerThanDeclared: the server's real window is smaller
// than --context-window says, so it answers 400 context_length_exceeded;
// clawdcode must recover (compact) or fail clearly, never corrupt the
// session.
func TestServerWindowSmallerThanDeclared(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	id, path := w.establish("--context-window", "64000")
	for i := 2; i <= 4; i++ {
		w.MustRun("-c", "-p", "--dangerously-skip-permissions", "--context-window", "64000", stepPrompt(i))
	}
	size := w.Server.LastRequest().Tokens
	w.Server.SetWindow(size * 3 / 4)
	mark := len(w.Server.Requests())
	r := w.Run("-c", "-p", "--dangerously-skip-permissions", "--context-window", "64000", stepPrompt(5))
	overflows := 0
	for _, req := range w.Server.Requests()[mark:] {
		if strings.Contains(req.Error, "maximum context length") {
			overflows++
		}
	}
	if overflows == 0 {
		t.Fatalf("the server never overflowed (window %d): the test does not exercise recovery", size*3/4)
	}
	t.Logf("%d overflow answers; exit %d %s", overflows, r.Code, firstLine(r.Stderr))
	if r.Code != 0 {
		if r.Code != 1 {
			t.Errorf("want success after recovery or a clear error (exit 1)\n%s", r)
		}
		oneErrorLine(t, r)
	}
	w.Server.SetWindow(0)
	w.checkHealthy(id, path)
}

// TestFailedRunStillPrintsResult: -p --output-format json prints its
// result object with is_error even when the model call fails.
func TestFailedRunStillPrintsResult(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.Enqueue(llmtest.Unauthorized())
	obj, r := w.printJSON("-p", "hello")
	if r.Code != 1 || !obj.IsError || obj.Subtype != "error" || obj.Type != "result" || !strings.Contains(obj.Result, "OPENAI_API_KEY") {
		t.Errorf("want exit 1 and a result object with is_error and the message\n%s", r)
	}
	oneErrorLine(t, r)

	// stream-json: one object per line, the last the same result object.
	w.Server.Enqueue(quickServerError(), quickServerError(), quickServerError(), quickServerError())
	r = w.Run("-p", "--output-format", "stream-json", "hello")
	lines := nonEmptyLines(r.Stdout)
	if r.Code != 1 || len(lines) == 0 {
		t.Fatalf("stream-json failing run: want exit 1 and events\n%s", r)
	}
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("stream-json line %d is not one JSON object: %q", i, l)
		}
	}
	var last resultObject
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Type != "result" || !last.IsError || last.Subtype != "error" {
		t.Errorf("the last stream-json line is not an error result object: %q", lines[len(lines)-1])
	}
}

// TestMalformedArgumentsNotReplayed: vLLM and SGLang parse the arguments of
// every tool call in the history and answer 400 when one does not parse, so
// a malformed call the model once made must not be sent back verbatim, or
// the session is poisoned for those servers (the strict fake server, like
// OpenAI, does not check this, hence the explicit assertion).
func TestMalformedArgumentsNotReplayed(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	id, path := w.establish()
	w.Server.Enqueue(
		llmtest.ToolCalls(llmtest.Call("Write", `{"file_path": "bad.txt", "content": "never closed`)),
		llmtest.Text("recovered"),
	)
	mark := len(w.Server.Requests())
	w.MustRun("-c", "-p", "--dangerously-skip-permissions", "write badly")
	w.MustRun("-c", "-p", "and later")
	for _, r := range w.Server.Requests()[mark:] {
		for _, m := range r.Messages {
			for _, tc := range m.ToolCalls {
				if !json.Valid([]byte(tc.Arguments)) {
					t.Errorf("a request carries the malformed arguments %q of %s", tc.Arguments, tc.ID)
				}
			}
		}
	}
	w.checkHealthy(id, path)
}
