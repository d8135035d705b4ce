package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// newTestLoop wires a loop over fakes: a Read that answers "contents of
// <input>", a Write that needs permission, and the given model script.
func newTestLoop(steps ...step) (*loop, *fakeConv, *fakeLLM, *recSink, map[string]*fakeTool) {
	read := &fakeTool{name: "Read", run: func(_ context.Context, in json.RawMessage) tools.Result {
		return tools.Result{Output: "contents of " + string(in)}
	}}
	write := &fakeTool{name: "Write", needsPerm: true, run: func(context.Context, json.RawMessage) tools.Result {
		return tools.Result{Output: "written"}
	}}
	conv, model, sink := &fakeConv{}, &fakeLLM{steps: steps}, &recSink{}
	l := &loop{
		conv:  conv,
		llm:   model,
		tools: []tools.Tool{read, write},
		perms: fakePerms{},
		model: "test-model",
		sink:  sink,
	}
	return l, conv, model, sink, map[string]*fakeTool{"Read": read, "Write": write}
}

func TestLoopOneShotAnswer(t *testing.T) {
	t.Parallel()
	l, conv, model, sink, _ := newTestLoop(say("hello there"))
	res, err := l.run(t.Context(), "hi")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "hello there" || res.NumTurns != 1 || res.Usage.InputTokens != 10 || res.Usage.OutputTokens != 3 {
		t.Fatalf("result = %+v", res)
	}
	if sink.text.String() != "hello there" {
		t.Fatalf("streamed %q", sink.text.String())
	}
	if model.reqs[0].Model != "test-model" {
		t.Fatalf("request model = %q, want the engine's", model.reqs[0].Model)
	}
	want := []chat.Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "hello there"}}
	if !slices.EqualFunc(conv.msgs, want, func(a, b chat.Message) bool { return a.Role == b.Role && a.Content == b.Content }) {
		t.Fatalf("recorded %+v", conv.msgs)
	}
}

// The model's reasoning reaches the sink as it streams, apart from the
// answer, and is neither recorded nor part of the partial text kept.
func TestLoopPassesReasoningToTheSink(t *testing.T) {
	t.Parallel()
	think := func(_ context.Context, _ llm.Request, on func(llm.Delta)) (*llm.Response, error) {
		on(llm.Delta{Reasoning: "the user greets; "})
		on(llm.Delta{Reasoning: "greet back"})
		on(llm.Delta{Content: "hello"})
		return &llm.Response{Content: "hello", FinishReason: "stop"}, nil
	}
	l, conv, _, sink, _ := newTestLoop(think)
	if _, err := l.run(t.Context(), "hi"); err != nil {
		t.Fatal(err)
	}
	if sink.thought.String() != "the user greets; greet back" || sink.text.String() != "hello" {
		t.Fatalf("thought %q, text %q", sink.thought.String(), sink.text.String())
	}
	for _, m := range conv.msgs {
		if strings.Contains(m.Content, "greet back") {
			t.Fatalf("the reasoning was recorded: %+v", m)
		}
	}
}

func TestLoopToolRoundTrip(t *testing.T) {
	t.Parallel()
	l, conv, model, sink, _ := newTestLoop(
		callTools(call("c1", "Read", `{"file_path":"a.go"}`), call("c2", "Read", `{"file_path":"b.go"}`)),
		say("done"),
	)
	res, err := l.run(t.Context(), "read them")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "done" || res.NumTurns != 2 || res.Usage.InputTokens != 17 || res.Usage.OutputTokens != 5 {
		t.Fatalf("result = %+v", res)
	}
	wantEvents := []string{"start c1 Read", "end c1 Read", "start c2 Read", "end c2 Read"}
	if !slices.Equal(sink.events, wantEvents) {
		t.Fatalf("events = %q, want %q", sink.events, wantEvents)
	}
	// The second request carries both results, in call order.
	second := model.reqs[1].Messages
	checkValid(t, second)
	if len(second) != 4 || second[2].Content != `contents of {"file_path":"a.go"}` || second[3].ToolCallID != "c2" {
		t.Fatalf("second request = %+v", second)
	}
	checkValid(t, conv.msgs)
}

func TestLoopPermission(t *testing.T) {
	t.Parallel()
	for _, allowed := range []bool{false, true} {
		t.Run(fmt.Sprint("allowed=", allowed), func(t *testing.T) {
			t.Parallel()
			l, conv, _, sink, tl := newTestLoop(callTools(call("w1", "Write", `{"file_path":"x","content":"y"}`)), say("ok"))
			if allowed {
				l.perms = fakePerms{allowed: map[string]bool{"Write": true}}
			}
			if _, err := l.run(t.Context(), "write x"); err != nil {
				t.Fatal(err)
			}
			result := conv.msgs[2]
			if allowed {
				if tl["Write"].ran != 1 || result.Content != "written" {
					t.Fatalf("allowed write: ran %d, result %q", tl["Write"].ran, result.Content)
				}
				return
			}
			if tl["Write"].ran != 0 {
				t.Fatal("denied Write ran")
			}
			if !strings.Contains(result.Content, "permission to use Write was denied") {
				t.Fatalf("model was told %q", result.Content)
			}
			if !slices.Equal(sink.events, []string{"end w1 Write error=permission to use Write was denied"}) {
				t.Fatalf("events = %q", sink.events)
			}
		})
	}
}

func TestLoopBadCallsAnswerTheModelAndGoOn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		call chat.ToolCall
		want string
	}{
		{"unknown tool", call("u1", "Teleport", `{}`), "unknown tool Teleport"},
		{"bad json", call("j1", "Read", `{"file_path": "a.go"`), "invalid JSON arguments for Read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l, conv, model, _, tl := newTestLoop(callTools(tt.call), say("recovered"))
			res, err := l.run(t.Context(), "go")
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != "recovered" || model.calls() != 2 {
				t.Fatalf("loop did not go on: %+v after %d calls", res, model.calls())
			}
			if tl["Read"].ran != 0 {
				t.Fatal("a tool ran for a bad call")
			}
			if got := conv.msgs[2].Content; !strings.Contains(got, tt.want) {
				t.Fatalf("model was told %q, want %q", got, tt.want)
			}
			checkValid(t, conv.msgs)
		})
	}
}

func TestLoopEmptyArgumentsReachTheTool(t *testing.T) {
	t.Parallel()
	l, conv, _, _, tl := newTestLoop(callTools(call("e1", "Read", "")), say("ok"))
	if _, err := l.run(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	if tl["Read"].ran != 1 || conv.msgs[2].Content != "contents of {}" {
		t.Fatalf("empty arguments: ran %d, result %q", tl["Read"].ran, conv.msgs[2].Content)
	}
}

func TestLoopMaxTurns(t *testing.T) {
	t.Parallel()
	forever := callTools(call("a", "Read", `{}`), call("b", "Read", `{}`))
	l, conv, model, _, _ := newTestLoop(forever, forever, forever)
	l.maxTurns = 2
	res, err := l.run(t.Context(), "loop")
	if !errors.Is(err, ErrMaxTurns) || err.Error() != "reached --max-turns 2" {
		t.Fatalf("err = %v", err)
	}
	if model.calls() != 2 || res.NumTurns != 2 {
		t.Fatalf("calls = %d, turns = %d", model.calls(), res.NumTurns)
	}
	checkValid(t, conv.msgs) // every call of the last reply answered
}

func TestLoopFinalAnswerOnTheLastAllowedTurn(t *testing.T) {
	t.Parallel()
	l, _, _, _, _ := newTestLoop(callTools(call("a", "Read", `{}`)), say("fine"))
	l.maxTurns = 2
	res, err := l.run(t.Context(), "go")
	if err != nil || res.Text != "fine" {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
}

func TestLoopOverflowRecovery(t *testing.T) {
	t.Parallel()
	overflow := &llm.Error{Kind: llm.KindOverflow, StatusCode: 400, Message: "This model's maximum context length is 8192 tokens."}
	t.Run("recovered", func(t *testing.T) {
		t.Parallel()
		l, conv, model, _, _ := newTestLoop(fail(overflow), fail(overflow), say("fits now"))
		conv.recover = []bool{true, true}
		res, err := l.run(t.Context(), "big")
		if err != nil || res.Text != "fits now" {
			t.Fatalf("res = %+v, err = %v", res, err)
		}
		if !slices.Equal(conv.attempts, []int{1, 2}) || model.calls() != 3 || res.NumTurns != 1 {
			t.Fatalf("attempts = %v, calls = %d, turns = %d", conv.attempts, model.calls(), res.NumTurns)
		}
		// The guard reads the window the server states from the rejection
		// itself, so each attempt must be handed the error it answers.
		for i, rej := range conv.rejections {
			if rej != error(overflow) {
				t.Fatalf("attempt %d was given rejection %v, want the server's overflow error", i+1, rej)
			}
		}
	})
	t.Run("gives up", func(t *testing.T) {
		t.Parallel()
		l, conv, model, _, _ := newTestLoop(fail(overflow), fail(overflow), fail(overflow))
		conv.recover = []bool{true, true}
		_, err := l.run(t.Context(), "big")
		if !errors.Is(err, ErrContextOverflow) {
			t.Fatalf("err = %v", err)
		}
		want := "context window exceeded even after truncating tool results and compacting: This model's maximum context length is 8192 tokens."
		if err.Error() != want {
			t.Fatalf("err = %q\nwant  %q", err, want)
		}
		if !slices.Equal(conv.attempts, []int{1, 2, 3}) || model.calls() != 3 {
			t.Fatalf("attempts = %v, calls = %d", conv.attempts, model.calls())
		}
		if len(conv.msgs) != 2 || conv.msgs[1].Content != "[failed: "+want+"]" {
			t.Fatalf("want the user message and a failed answer: %+v", conv.msgs)
		}
	})
}

func TestLoopOtherModelErrorsAreReturned(t *testing.T) {
	t.Parallel()
	authErr := &llm.Error{Kind: llm.KindAuth, StatusCode: 401, Message: "Incorrect API key provided"}
	l, conv, _, _, _ := newTestLoop(fail(authErr))
	_, err := l.run(t.Context(), "hi")
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.KindAuth || len(conv.attempts) != 0 {
		t.Fatalf("err = %v, recovery attempts = %v", err, conv.attempts)
	}
}

// An interrupted answer is kept as far as the user saw it, marked, so the
// next message does not follow an unanswered one.
func TestLoopCancelMidStreamKeepsWhatWasShownMarked(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	l, conv, _, sink, _ := newTestLoop(func(ctx context.Context, _ llm.Request, onDelta func(llm.Delta)) (*llm.Response, error) {
		onDelta(llm.Delta{Content: "half a rep"})
		cancel()
		return nil, &llm.Error{Kind: llm.KindNetwork, Message: "stream aborted", Err: ctx.Err()}
	})
	_, err := l.run(ctx, "hi")
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v", err)
	}
	if sink.text.String() != "half a rep" {
		t.Fatalf("streamed %q", sink.text.String())
	}
	if len(conv.msgs) != 2 || conv.msgs[0].Role != chat.RoleUser || conv.msgs[1].Role != chat.RoleAssistant ||
		conv.msgs[1].Content != "half a rep[interrupted]" {
		t.Fatalf("recorded %+v, want the user message and the partial answer marked interrupted", conv.msgs)
	}
}

func TestLoopCancelMidToolRecordsInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	l, conv, model, _, tl := newTestLoop(callTools(call("s1", "Sleep", `{}`), call("r1", "Read", `{}`)))
	sleep := &fakeTool{name: "Sleep", run: func(ctx context.Context, _ json.RawMessage) tools.Result {
		cancel() // the user presses Ctrl-C while the tool runs
		<-ctx.Done()
		return tools.Result{Output: "partial output", Error: "killed"}
	}}
	l.tools = append(l.tools, sleep)
	_, err := l.run(ctx, "sleep")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if tl["Read"].ran != 0 || model.calls() != 1 {
		t.Fatalf("the turn went on after Ctrl-C: read ran %d, model calls %d", tl["Read"].ran, model.calls())
	}
	checkValid(t, conv.msgs)
	for _, m := range conv.msgs[2:] {
		if !strings.Contains(m.Content, interruptedResult) {
			t.Fatalf("result %s = %q, want it marked interrupted", m.ToolCallID, m.Content)
		}
	}
	if !strings.Contains(conv.msgs[2].Content, "partial output") {
		t.Fatalf("the interrupted tool's output was lost: %q", conv.msgs[2].Content)
	}
}

// erringPerms fails like a permission prompt whose terminal went away.
type erringPerms struct{}

func (erringPerms) Check(context.Context, tools.Tool, json.RawMessage) (string, error) {
	return "", errors.New("read answer: EOF")
}

func TestLoopPermissionErrorStillAnswersEveryCall(t *testing.T) {
	t.Parallel()
	l, conv, _, _, _ := newTestLoop(callTools(call("w1", "Write", `{}`), call("w2", "Write", `{}`)))
	l.perms = erringPerms{}
	_, err := l.run(t.Context(), "write")
	if err == nil || !strings.Contains(err.Error(), "read answer: EOF") {
		t.Fatalf("err = %v", err)
	}
	checkValid(t, conv.msgs)
}
