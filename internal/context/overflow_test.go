package contextmgr

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestServerWindowSmallerThanBelieved drives the manager the way the agent
// loop does, against the in-repo server whose real window (6000) is far
// below what the manager was told (50000): every turn must still get its
// answer through the guard, and the server must never be left rejecting.
func TestServerWindowSmallerThanBelieved(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{Window: 6000, RejectConsecutiveUser: true})
	srv.SetResponder(func(r llmtest.Request) llmtest.Reply {
		if llmtest.IsSummaryRequest(r) {
			return llmtest.Reply{Text: "Summary: the user asked for reads of big files."}
		}
		return llmtest.Reply{Text: "noted"}
	})
	client, err := llm.New(llm.Config{BaseURL: srv.URL(), APIKey: "test", Retry: llm.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	log := &memLog{}
	counter := &byteCounter{}
	m, err := New(context.Background(), log, nil, Options{
		Model:      "gpt-4o",
		Window:     50000,
		System:     "You are a test assistant.",
		Tools:      []chat.ToolDef{{Name: "Read", Description: "read", Parameters: []byte(`{"type":"object"}`)}},
		LLM:        client,
		Counter:    counter,
		UpperBound: byteUpperBound,
		Estimate:   func(s string) int { return (len(s) + 3) / 4 },
		Files:      testFiles,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	call := func() (int, error) {
		for attempt := 0; ; {
			req, err := m.Request(ctx)
			if err != nil {
				return attempt, err
			}
			resp, err := client.Stream(ctx, req, func(llm.Delta) {})
			if err == nil {
				return attempt, m.AddAssistant(resp)
			}
			if !llm.IsOverflow(err) {
				return attempt, err
			}
			attempt++
			if ok, err := m.RecoverOverflowFrom(ctx, attempt, nil); err != nil || !ok {
				return attempt, fmt.Errorf("gave up after %d attempts: %v", attempt, err)
			}
		}
	}
	recovered := 0
	for i := range 12 {
		if err := m.AddUser(fmt.Sprintf("turn %d: read the next file", i)); err != nil {
			t.Fatal(err)
		}
		// The tool result lands before the next call, as in a tool loop.
		if err := m.AddAssistant(&llm.Response{ToolCalls: []chat.ToolCall{{ID: fmt.Sprint("c", i), Name: "Read", Arguments: `{}`}}}); err != nil {
			t.Fatal(err)
		}
		if err := m.AddToolResult(fmt.Sprint("c", i), strings.Repeat("data ", 1500), ""); err != nil {
			t.Fatal(err)
		}
		attempts, err := call()
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		if attempts > 2 {
			t.Fatalf("turn %d needed %d recoveries", i, attempts)
		}
		recovered += attempts
	}
	if recovered == 0 || m.guard.effective >= 50000 {
		t.Errorf("the guard never ran (recoveries %d, window %d)", recovered, m.guard.effective)
	}
	if m.Compactions() == 0 && len(m.ladder.steps) == 0 {
		t.Error("never compacted nor cleared")
	}
	// Once the guard has learnt the window, turns go through first time.
	rejected := 0
	for _, r := range srv.Requests()[len(srv.Requests())-4:] {
		if r.Status != 0 && r.Status != 200 {
			rejected++
		}
	}
	if rejected > 0 {
		t.Errorf("%d of the last 4 requests rejected", rejected)
	}
	t.Logf("recoveries %d, compactions %d, learnt window %d", recovered, m.Compactions(), m.guard.effective)
}
