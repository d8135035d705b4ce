package llm

import (
	"context"
	"slices"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// A tool call's name reaches onDelta as soon as it streams, before its
// arguments: the server holds the stream after the name until the client
// has told of it.
func TestStreamTellsAToolCallsNameBeforeItsArguments(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	resume := make(chan struct{})
	reply := llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"go test ./..."}`), llmtest.Call("Read", `{"file_path":"a"}`))
	reply.PauseAfter, reply.Resume = 2, resume // chunk 0 opens the reply, chunk 1 names the first call
	srv.Enqueue(reply)
	c, _ := newTestClient(t, srv.URL())
	var named []string
	resp, err := c.Stream(context.Background(), userRequest("go"), func(d Delta) {
		if d.ToolCall != "" {
			named = append(named, d.ToolCall)
			if d.ToolCall == "Bash" {
				close(resume)
			}
		}
	})
	if err != nil {
		t.Fatalf("Stream: %v (the name never came before the arguments)", err)
	}
	if !slices.Equal(named, []string{"Bash", "Read"}) || len(resp.ToolCalls) != 2 {
		t.Fatalf("names told %q; calls %+v", named, resp.ToolCalls)
	}
}

// The Responses API names a call when its output item is added, once.
func TestResponsesStreamTellsToolCallNames(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Reply{Text: "Looking.", ToolCalls: []llmtest.ToolCall{
		llmtest.Call("Bash", `{"command":"ls"}`), llmtest.Call("Glob", `{"pattern":"*"}`)}})
	c, _ := responsesClient(t, srv)
	var named []string
	if _, err := c.Stream(context.Background(), userRequest("go"), func(d Delta) {
		if d.ToolCall != "" {
			named = append(named, d.ToolCall)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(named, []string{"Bash", "Glob"}) {
		t.Fatalf("names told %q, want Bash then Glob, once each", named)
	}
}
