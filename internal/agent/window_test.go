package agent

import (
	"strings"
	"testing"

	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestOverflowBoundIsTheManagers: the loop asks for recovery as often as
// the context manager's bound says, no more (the loop had 8, the guard 3).
func TestOverflowBoundIsTheManagers(t *testing.T) {
	t.Parallel()
	overflow := &llm.Error{Kind: llm.KindOverflow, StatusCode: 400, Message: "too long"}
	var replies []step
	for range contextmgr.MaxOverflowAttempts + 3 {
		replies = append(replies, fail(overflow))
	}
	l, conv, model, _, _ := newTestLoop(replies...)
	for range contextmgr.MaxOverflowAttempts + 3 {
		conv.recover = append(conv.recover, true)
	}
	if _, err := l.run(t.Context(), "big"); err == nil {
		t.Fatal("an endless overflow was not reported")
	}
	if len(conv.attempts) != contextmgr.MaxOverflowAttempts || model.calls() != contextmgr.MaxOverflowAttempts+1 {
		t.Errorf("%d recovery attempts, %d calls; want %d and %d", len(conv.attempts), model.calls(), contextmgr.MaxOverflowAttempts, contextmgr.MaxOverflowAttempts+1)
	}
}

// TestRequestSizeReachesTheIndex: the size the manager measures for each
// request reaches the session's index entry through the engine's session
// log (the manager's SetTokens never got through the engine's wrapper).
func TestRequestSizeReachesTheIndex(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	e := w.engine(t, nil, 0)
	w.srv.Enqueue(llmtest.Text("hi"))
	if _, err := e.Turns().Submit(t.Context(), "hello", nil); err != nil {
		t.Fatal(err)
	}
	before := e.log.sess.Info().Tokens
	if err := e.mgr.AddUser(strings.Repeat("a long message ", 2000)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.mgr.Request(t.Context()); err != nil {
		t.Fatal(err)
	}
	if after := e.log.sess.Info().Tokens; after <= before+2000 {
		t.Errorf("index tokens %d → %d after a request with ~4000 more tokens", before, after)
	}
}

// TestModelSwitchUpdatesWindowAndTokenizer: /model switches the window
// with the tokenizer when the window came from the models table.
func TestModelSwitchUpdatesWindowAndTokenizer(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	e := mustNew(t, Config{Model: "gpt-4o", Project: w.proj, LLM: w.llm})
	t.Cleanup(func() { _ = e.Close() })
	e.Turns().SetModel("gpt-4")
	if w := e.Context().Usage().Window; w != 8192 {
		t.Errorf("after /model gpt-4: window %d, want gpt-4's 8192", w)
	}
}
