package perf

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdcode/clawdcode/internal/cli"
	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// runInProcess runs one clawdcode command line in this process, through
// the same cli.Run that main calls, with w's environment. It exists so a
// turn's own work can be profiled (go test -cpuprofile) apart from process
// start.
func (w *world) runInProcess(tb testing.TB, args ...string) string {
	tb.Helper()
	env := map[string]string{}
	for _, kv := range w.environ() {
		for i := range len(kv) {
			if kv[i] == '=' {
				env[kv[:i]] = kv[i+1:]
				break
			}
		}
	}
	ios, _, stdout, stderr := iostreams.Test()
	f := cli.NewFactory(ios)
	f.Getenv = func(k string) string { return env[k] }
	f.Getwd = func() (string, error) { return w.project, nil }
	f.Home = func() (string, error) { return w.home, nil }
	if code := cli.Run(context.Background(), f, args); code != 0 {
		tb.Fatalf("clawdcode %q: exit %d: %s", clip(fmt.Sprint(args), 200), code, stderr)
	}
	return stdout.String()
}

// BenchmarkContinuedTurnInProcess is one `-c -p` turn on the session of
// BenchmarkContinuedTurns after its 30 turns (~125k tokens, window 200k),
// run in-process: the turn's own work without process start and exit.
// Each op adds a short exchange to the session.
func BenchmarkContinuedTurnInProcess(b *testing.B) {
	w := newWorld(b)
	w.env = append(w.env, "CLAWDCODE_CONTEXT_WINDOW=200000")
	w.srv.SetResponder(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Text(fmt.Sprintf("Noted: %d messages so far.", len(r.Messages)))
	})
	for i := range continuedTurns {
		args := []string{"-p", fmt.Sprintf("Turn %d. Keep this in mind:\n%s", i+1, prose(uint64(1000+i), turnPromptBytes))}
		if i > 0 {
			args = append([]string{"-c"}, args...)
		}
		w.runInProcess(b, args...)
	}
	b.ResetTimer()
	for b.Loop() {
		w.runInProcess(b, "-c", "-p", "One more short question: what did turn 3 say?")
	}
}

// BenchmarkCompactingTurnInProcess is the compacting turn of
// BenchmarkContinuedTurnNearTrigger run in-process, again and again on a
// copy of the session as it was before that turn: the turn's own work
// (sizing, the ladder, the summary call, the records) without process
// start, for go test -cpuprofile and -memprofile.
func BenchmarkCompactingTurnInProcess(b *testing.B) {
	w := newWorld(b)
	w.env = append(w.env, fmt.Sprintf("CLAWDCODE_CONTEXT_WINDOW=%d", nearTriggerWindow))
	w.srv.SetResponder(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Text(fmt.Sprintf("Noted: %d messages so far.", len(r.Messages)))
	})
	before := filepath.Join(w.root, "before")
	var args []string
	for i := range nearTriggerMaxTurns {
		args = nearTriggerTurnArgs(i)
		if err := os.RemoveAll(before); err != nil {
			b.Fatal(err)
		}
		if i > 0 {
			if err := os.CopyFS(before, os.DirFS(w.home)); err != nil {
				b.Fatal(err)
			}
		}
		var res jsonResult
		if err := json.Unmarshal([]byte(w.runInProcess(b, args...)), &res); err != nil {
			b.Fatal(err)
		}
		if res.Compactions > 0 {
			break
		}
		if i == nearTriggerMaxTurns-1 {
			b.Fatalf("no turn of %d compacted", nearTriggerMaxTurns)
		}
	}
	iter := 0
	for b.Loop() {
		b.StopTimer()
		w.home = filepath.Join(w.root, fmt.Sprintf("home-%d", iter))
		iter++
		if err := os.CopyFS(w.home, os.DirFS(before)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		var res jsonResult
		if err := json.Unmarshal([]byte(w.runInProcess(b, args...)), &res); err != nil || res.Compactions != 1 {
			b.Fatalf("the turn did not compact once: %v, %+v", err, res)
		}
	}
}
