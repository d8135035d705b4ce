package perf

import (
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// argumentsStream is how long the Streamed model of BenchmarkFirstCommand
// takes to stream a call's arguments after its name: `{"command":
// "true"}` is about six tokens, 50 ms at ~120 tokens a second.
const argumentsStream = 50 * time.Millisecond

// BenchmarkFirstCommand is a -p run in which the model calls Bash once,
// with `true`, and then answers: the run's first command, which starts
// the run's command host. Each op is two runs, one sandboxed
// (workspace-write, the default) and one with --sandbox off, so that both
// see the same load; reported side by side, with the sandbox's extra wall
// time (the median of each pair's difference). Budget (issue 32): at most
// 10 ms. Instant: the server answers at once, nothing to overlap the
// host's start with (the worst case). Streamed: the call's arguments take
// argumentsStream after its name, as a model's do — the host starts when
// the name arrives.
func BenchmarkFirstCommand(b *testing.B) {
	for _, model := range []struct {
		name  string
		pause time.Duration
	}{{"Instant", 0}, {"Streamed", argumentsStream}} {
		b.Run(model.name, func(b *testing.B) {
			w := newWorld(b)
			agent := llmtest.Agent()
			w.srv.SetResponder(func(r llmtest.Request) llmtest.Reply {
				reply := agent(r)
				if len(reply.ToolCalls) > 0 && model.pause > 0 {
					// Chunk 0 opens the reply, chunk 1 names the call.
					reply.Pause, reply.PauseAfter = model.pause, 2
				}
				return reply
			})
			var off, boxed sample
			var extra []time.Duration
			for b.Loop() {
				o := w.firstCommand(b, "off")
				s := w.firstCommand(b, "workspace-write")
				off.add(o)
				boxed.add(s)
				extra = append(extra, s.wall-o.wall)
			}
			off.report(b, "off-")
			boxed.report(b, "sandboxed-")
			b.ReportMetric(ms(median(extra)), "extra-p50-ms")
		})
	}
}

// firstCommand is one -p run of BenchmarkFirstCommand's in the sandbox
// mode given.
func (w *world) firstCommand(b *testing.B, mode string) run {
	b.Helper()
	r := w.run(b, "-p", "--dangerously-skip-permissions", "--sandbox", mode, "bash true")
	if !strings.Contains(r.stdout, "Tool results:") || strings.Contains(r.stdout, "sandbox:") {
		b.Fatalf("--sandbox %s: the command did not run cleanly: %q", mode, r.stdout)
	}
	return r
}
