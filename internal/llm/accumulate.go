package llm

import (
	"crypto/rand"
	"encoding/hex"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// accumulator assembles a streamed reply from its chunks. Providers differ
// in how they stream tool calls:
//
//   - OpenAI: id, type and name only on the first delta of each call,
//     arguments in pieces, calls told apart by index and possibly
//     interleaved;
//   - xAI: the whole call (id, name, full arguments) in one delta;
//   - some servers: an empty "tool_calls": [] on every delta;
//   - some servers: no index at all, one call after another.
//
// A call is identified by its index; without one, a delta carrying a new
// id starts a new call and a delta without an id continues the latest. A
// known index that suddenly carries a different id is a new call too (a
// provider numbering every call 0).
type accumulator struct {
	content      strings.Builder
	model        string
	finishReason string
	usage        Usage
	chunks       int
	size         int // bytes of text, tool-call ids, names and arguments received

	calls   []*partialCall
	byIndex map[int]int // provider index → position in calls
	// named are the names of the calls whose name grew since takeNamed.
	named []string
}

type partialCall struct {
	id   string
	name string
	args strings.Builder
}

// add folds one chunk in and returns the text it contributed, for the user
// to see at once.
func (a *accumulator) add(chunk *openai.ChatCompletionStreamResponse) string {
	a.chunks++
	if a.model == "" {
		a.model = chunk.Model
	}
	if chunk.Usage != nil {
		a.usage = Usage{PromptTokens: chunk.Usage.PromptTokens, CompletionTokens: chunk.Usage.CompletionTokens}
		if d := chunk.Usage.PromptTokensDetails; d != nil {
			a.usage.CachedTokens = d.CachedTokens
		}
	}
	var text string
	for i := range chunk.Choices {
		choice := &chunk.Choices[i]
		// clawdcode asks for one choice; a second one would be a different
		// reply, not a continuation of this one.
		if choice.Index != 0 {
			continue
		}
		delta := &choice.Delta
		text += delta.Content + delta.Refusal
		for j := range delta.ToolCalls {
			tc := &delta.ToolCalls[j]
			a.size += len(tc.ID) + len(tc.Function.Name) + len(tc.Function.Arguments)
			a.addToolCall(tc)
		}
		if choice.FinishReason != "" {
			a.finishReason = string(choice.FinishReason)
		}
	}
	a.content.WriteString(text)
	a.size += len(text)
	return text
}

func (a *accumulator) addToolCall(tc *openai.ToolCall) {
	var call *partialCall
	if tc.Index != nil {
		if a.byIndex == nil {
			a.byIndex = make(map[int]int)
		}
		pos, ok := a.byIndex[*tc.Index]
		if ok && tc.ID != "" && a.calls[pos].id != "" && a.calls[pos].id != tc.ID {
			ok = false
		}
		if !ok {
			pos = len(a.calls)
			a.calls = append(a.calls, &partialCall{})
			a.byIndex[*tc.Index] = pos
		}
		call = a.calls[pos]
	} else {
		last := len(a.calls) - 1
		if last < 0 || (tc.ID != "" && a.calls[last].id != "" && a.calls[last].id != tc.ID) {
			a.calls = append(a.calls, &partialCall{})
			last++
		}
		call = a.calls[last]
	}
	if call.id == "" {
		call.id = tc.ID
	}
	// A repeated name is the same name again; a different one is the next
	// fragment of a name streamed in pieces.
	if tc.Function.Name != "" && tc.Function.Name != call.name {
		call.name += tc.Function.Name
		a.named = append(a.named, call.name)
	}
	call.args.WriteString(tc.Function.Arguments)
}

// takeNamed returns the names of the calls begun or whose name grew since
// it was last called (a call's name as far as it has come).
func (a *accumulator) takeNamed() []string {
	named := a.named
	a.named = nil
	return named
}

// finished reports whether the server said the reply is complete.
func (a *accumulator) finished() bool { return a.finishReason != "" }

// response builds the reply. Calls with neither a name nor arguments are
// placeholders some providers emit and are dropped; a call without an id
// gets one, because the tool result must reference it; empty arguments
// become "{}" because the API rejects an assistant tool call without them
// when the history is sent back.
func (a *accumulator) response() *Response {
	resp := &Response{
		Content:      a.content.String(),
		FinishReason: a.finishReason,
		Model:        a.model,
		Usage:        a.usage,
	}
	for _, c := range a.calls {
		args := c.args.String()
		if c.name == "" && strings.TrimSpace(args) == "" {
			continue
		}
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		id := c.id
		if id == "" {
			id = newCallID()
		}
		resp.ToolCalls = append(resp.ToolCalls, chat.ToolCall{ID: id, Name: c.name, Arguments: args})
	}
	return resp
}

func newCallID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return "call_" + hex.EncodeToString(b[:])
}
