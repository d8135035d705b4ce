package perf

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tokens"
)

// The resumed session of BenchmarkResume1GB: 1 GiB in all, its last
// compaction ~1 MB from the end, ~64 KB retained before the boundary. The
// live context (~1.1 MB, ~270k tokens) needs a window of that size, so the
// runs use a 1M-token window (gpt-4.1's): the trigger is 800k tokens.
const (
	resumeFileBytes     = 1 << 30
	resumeLiveBytes     = 1 << 20
	resumeRetainedBytes = 64 << 10
	resumeWindow        = "1000000"
)

// resumeFixture is one generated home holding the 1 GiB session.
type resumeFixture struct {
	once    sync.Once
	root    string
	id      string
	liveOff int64 // where the live context starts (the retained record)
	err     error
}

// resumeFixtures: Uncounted has no stored token counts (a session written
// by processes that never needed the tokenizer); Counted has one on every
// live record (clawdcode stores Record.Tokens once it has tokenized).
var resumeFixtures = map[string]*resumeFixture{"Uncounted": {}, "Counted": {}}

func (fx *resumeFixture) build(tb testing.TB, name string) *resumeFixture {
	tb.Helper()
	fx.once.Do(func() {
		fx.root = filepath.Join(scratch, "resume-"+name)
		w := &world{root: fx.root, home: filepath.Join(fx.root, "clawdcode-home"), project: filepath.Join(fx.root, "project")}
		for _, d := range []string{w.project, filepath.Join(fx.root, "user"), filepath.Join(fx.root, "tmp")} {
			if fx.err = os.MkdirAll(d, 0o700); fx.err != nil {
				return
			}
		}
		p, err := storage.NewStore(w.home).Project(w.project)
		if err != nil {
			fx.err = err
			return
		}
		spec := bigSession{bulk: resumeFileBytes - resumeLiveBytes - resumeRetainedBytes,
			retained: resumeRetainedBytes, live: resumeLiveBytes, withBoundary: true}
		if name == "Counted" {
			spec.count = recordTokens(tokens.NewCounter("gpt-4.1"))
		}
		var path, retained string
		fx.id, path, retained, fx.err = createSession(context.Background(), p, spec)
		if fx.err != nil {
			return
		}
		live, err := storage.LoadLive(context.Background(), path)
		if err != nil {
			fx.err = err
			return
		}
		if live.Records[0].Record.UUID != retained || len(live.Warnings) > 0 {
			fx.err = fmt.Errorf("fixture does not resume from its boundary: %q", live.Warnings)
		}
		fx.liveOff = live.Records[0].Offset
	})
	if fx.err != nil {
		tb.Fatal(fx.err)
	}
	return fx
}

// recordTokens counts a record's contribution the way the context manager
// does (its message alone, chat accounting included).
func recordTokens(c *tokens.Counter) func(*storage.Record) int {
	return func(r *storage.Record) int {
		var m chat.Message
		switch {
		case r.Tool != nil:
			m = chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: r.Tool.ID, Name: r.Tool.Name, Arguments: string(r.Tool.Input)}}}
		case r.ToolResult != nil:
			m = chat.Message{Role: chat.RoleTool, Content: r.ToolResult.Output, ToolCallID: r.ToolResult.ID}
		case r.Message != nil && !r.IsBoundary():
			m = chat.Message{Role: r.Message.Role, Content: r.Message.Content}
		default:
			return 0
		}
		return c.Message(m)
	}
}

// BenchmarkResume1GB is `clawdcode -c -p "…"` on a 1 GiB session whose last
// compaction is ~1 MB from the end, against a server that answers at once:
// process start, finding the session, loading the live context, the first
// request, the answer, exit — an upper bound of "resumed and ready to
// send". Target ≤ 100 ms, ≤ 64 MB peak RSS.
func BenchmarkResume1GB(b *testing.B) {
	for _, name := range []string{"Uncounted", "Counted"} {
		b.Run(name, func(b *testing.B) {
			fx := resumeFixtures[name].build(b, name)
			w := &world{root: fx.root, home: filepath.Join(fx.root, "clawdcode-home"), project: filepath.Join(fx.root, "project"),
				srv: llmtest.NewServer(b, llmtest.Options{}), env: []string{"CLAWDCODE_CONTEXT_WINDOW=" + resumeWindow, "CLAWDCODE_MODEL=gpt-4.1"}}
			w.srv.SetResponder(func(r llmtest.Request) llmtest.Reply {
				return llmtest.Text(fmt.Sprintf("Resumed with %d messages.", len(r.Messages)))
			})
			// The first run after the file was written refreshes the
			// project's index; time the steady state.
			w.run(b, "-c", "-p", "Where were we?")
			var s sample
			for b.Loop() {
				r := w.run(b, "-c", "-p", "Where were we?")
				if !strings.HasPrefix(r.stdout, "Resumed with ") {
					b.Fatalf("stdout %q", r.stdout)
				}
				s.add(r)
			}
			s.report(b, "")
			b.ReportMetric(float64(w.srv.LastRequest().Tokens)/1000, "request-ktok")
		})
	}
	// The same resume against a server that does not decode the request:
	// the client's own time, without llmtest's validation of 1 MB.
	b.Run("Counted/RawServer", func(b *testing.B) {
		fx := resumeFixtures["Counted"].build(b, "Counted")
		w := &world{root: fx.root, home: filepath.Join(fx.root, "clawdcode-home"), project: filepath.Join(fx.root, "project"),
			baseURL: newRawServer(b), env: []string{"CLAWDCODE_CONTEXT_WINDOW=" + resumeWindow, "CLAWDCODE_MODEL=gpt-4.1"}}
		var s sample
		for b.Loop() {
			r := w.run(b, "-c", "-p", "Where were we?")
			if !strings.HasPrefix(r.stdout, "Noted: ") {
				b.Fatalf("stdout %q", r.stdout)
			}
			s.add(r)
		}
		s.report(b, "")
	})
}
