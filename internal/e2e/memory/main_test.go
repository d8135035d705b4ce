// Package memory holds the end-to-end tests of issue 10, "memory beyond
// the window": the real binary against llmtest, whose summariser here
// forgets every detail, so whatever comes back came back through Recall,
// a receipt, a pin or the file itself. memories_test.go holds those of
// issue 24, memories across sessions (/memory, CONTRACT §11).
package memory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/storage"
)

func TestMain(m *testing.M) {
	os.Exit(harness.Main(m, os.Stderr, "memory"))
}

type world struct{ *harness.World }

// forgetfulSummary is what the summariser answers: nothing of substance.
const forgetfulSummary = "The user and the assistant talked about some things. Nothing else to report."

// isSummaryRequest: clawdcode's summarisation calls (llmtest.IsSummaryRequest).
func isSummaryRequest(r llmtest.Request) bool { return llmtest.IsSummaryRequest(r) }

// newWorld is a world whose model plays llmtest.Agent and whose
// summariser forgets every detail.
func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{harness.NewWorld(t, llmtest.Options{})}
	w.Server.SetResponder(w.responder())
	return w
}

// responder plays llmtest.Agent, and the forgetful summariser.
func (w *world) responder() func(llmtest.Request) llmtest.Reply {
	agent := llmtest.Agent()
	return func(r llmtest.Request) llmtest.Reply {
		if isSummaryRequest(r) {
			return llmtest.Text(forgetfulSummary)
		}
		return agent(r)
	}
}

func (w *world) writeFile(name, content string) {
	w.T.Helper()
	if err := os.WriteFile(filepath.Join(w.Project, name), []byte(content), 0o644); err != nil {
		w.T.Fatal(err)
	}
}

func (w *world) readFile(name string) string {
	w.T.Helper()
	b, err := os.ReadFile(filepath.Join(w.Project, name))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// sessions lists the session files, oldest first by name order of
// creation is not given, so by modification time.
func (w *world) sessions() []string {
	w.T.Helper()
	matches, err := filepath.Glob(filepath.Join(w.Home, "projects", "*", "*.jsonl"))
	if err != nil {
		w.T.Fatal(err)
	}
	return matches
}

func (w *world) sessionPath(id string) string {
	w.T.Helper()
	for _, p := range w.sessions() {
		if strings.TrimSuffix(filepath.Base(p), ".jsonl") == id {
			return p
		}
	}
	w.T.Fatalf("no session file for %s among %v", id, w.sessions())
	return ""
}

// runJSON runs with --output-format json and returns the result object.
func (w *world) runJSON(args ...string) harness.ResultObject {
	w.T.Helper()
	var obj harness.ResultObject
	r := w.RunJSON(&obj, append(args, "--output-format", "json")...)
	if r.Code != 0 || obj.IsError {
		w.T.Fatalf("clawdcode %q failed:\n%s", args, r)
	}
	return obj
}

// records decodes a session file; every line must parse.
func records(t *testing.T, path string) []*storage.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*storage.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r storage.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v in %q", path, err, sc.Text())
		}
		out = append(out, &r)
	}
	return out
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// toolResultAfter returns the content of the last tool message of the
// first agent request, from index from on, whose last message is a tool
// result.
func toolResultAfter(t *testing.T, srv *llmtest.Server, from int) string {
	t.Helper()
	for _, r := range srv.Requests()[from:] {
		if isSummaryRequest(r) || len(r.Messages) == 0 {
			continue
		}
		if last := r.Messages[len(r.Messages)-1]; last.Role == chat.RoleTool {
			return last.Content
		}
	}
	t.Fatal("no request carried a tool result")
	return ""
}

func containsAny(msgs []chat.Message, s string) bool {
	return slices.ContainsFunc(msgs, func(m chat.Message) bool {
		if strings.Contains(m.Content, s) {
			return true
		}
		for _, c := range m.ToolCalls {
			if strings.Contains(c.Arguments, s) {
				return true
			}
		}
		return false
	})
}

var _ = bytes.Equal
