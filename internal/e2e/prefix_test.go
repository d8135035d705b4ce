package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// requestParts is what a prompt cache keys on: the tools and the messages,
// each as the exact bytes sent.
type requestParts struct {
	Tools    json.RawMessage   `json:"tools"`
	Messages []json.RawMessage `json:"messages"`
}

// Servers with prefix caching (OpenAI, vLLM, llama.cpp) reuse a prompt
// only while it starts with the same bytes. Each request of a session,
// across tool rounds and across a -c, must repeat the previous one's
// tools and messages byte for byte and only add to them.
func TestConsecutiveRequestsKeepTheirPrefix(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	if err := os.WriteFile(filepath.Join(w.Project, "a.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.Server.Enqueue(
		llmtest.ToolCalls(llmtest.Call("Read", `{"file_path":"a.txt"}`)),
		llmtest.Reply{Text: "Now a command.", ToolCalls: []llmtest.ToolCall{llmtest.Call("Bash", `{"command":"echo hi"}`), llmtest.Call("Glob", `{"pattern":"*.txt"}`)}},
		llmtest.Text("done"),
		llmtest.Text("again"),
	)
	w.MustRun("-p", "--dangerously-skip-permissions", "look at a.txt")
	w.MustRun("-c", "-p", "and once more")

	reqs := w.Server.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	var prev requestParts
	for i, r := range reqs {
		var cur requestParts
		if err := json.Unmarshal(r.Body, &cur); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if i > 0 {
			if !bytes.Equal(prev.Tools, cur.Tools) {
				t.Errorf("request %d sends other tool bytes than request %d: the cached prefix is lost", i+1, i)
			}
			if len(cur.Messages) <= len(prev.Messages) {
				t.Fatalf("request %d has %d messages, request %d had %d", i+1, len(cur.Messages), i, len(prev.Messages))
			}
			for j, m := range prev.Messages {
				if !bytes.Equal(m, cur.Messages[j]) {
					t.Errorf("request %d re-renders message %d:\n was %s\n now %s", i+1, j, m, cur.Messages[j])
				}
			}
		}
		prev = cur
	}
}
