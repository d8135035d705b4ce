package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// Wire APIs a Client can speak (the wire_api configuration key).
const (
	WireChat      = "chat"      // POST /chat/completions
	WireResponses = "responses" // POST /responses, OpenAI's Responses API
)

// responsesRequest is the body of POST /responses. The conversation is
// sent whole every time (store: false), as with chat completions: the
// session file, not the server, is the memory, and the same history makes
// the same prefix for the server's prompt cache.
type responsesRequest struct {
	Model           string          `json:"model"`
	Instructions    string          `json:"instructions,omitempty"`
	Input           []responsesItem `json:"input"`
	Tools           []responsesTool `json:"tools,omitempty"`
	Stream          bool            `json:"stream"`
	Store           bool            `json:"store"`
	MaxOutputTokens int             `json:"max_output_tokens,omitempty"`
}

// responsesItem is one input item: a message (Role and Content), a
// function call the model made, or its output.
type responsesItem struct {
	Type      string `json:"type"`
	Role      string `json:"role,omitempty"`
	Content   string `json:"content,omitempty"`
	CallID    string `json:"call_id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	Output    string `json:"output,omitempty"`
}

type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// toResponsesRequest maps a chat-shaped Request onto the Responses API:
// the leading system messages become the instructions, assistant tool
// calls become function_call items and tool messages function_call_output
// items.
func toResponsesRequest(req Request) responsesRequest {
	out := responsesRequest{Model: req.Model, Stream: true, MaxOutputTokens: req.MaxCompletionTokens}
	msgs := req.Messages
	var instr []string
	for len(msgs) > 0 && msgs[0].Role == chat.RoleSystem {
		instr = append(instr, msgs[0].Content)
		msgs = msgs[1:]
	}
	out.Instructions = strings.Join(instr, "\n\n")
	for _, m := range msgs {
		switch {
		case m.Role == chat.RoleTool:
			out.Input = append(out.Input, responsesItem{Type: "function_call_output", CallID: m.ToolCallID, Output: nonEmpty(m.Content)})
		case m.Role == chat.RoleAssistant && len(m.ToolCalls) > 0:
			if m.Content != "" {
				out.Input = append(out.Input, responsesItem{Type: "message", Role: m.Role, Content: m.Content})
			}
			for _, tc := range m.ToolCalls {
				args := tc.Arguments
				if strings.TrimSpace(args) == "" {
					args = "{}"
				}
				out.Input = append(out.Input, responsesItem{Type: "function_call", CallID: tc.ID, Name: tc.Name, Arguments: args})
			}
		default:
			out.Input = append(out.Input, responsesItem{Type: "message", Role: m.Role, Content: nonEmpty(m.Content)})
		}
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out.Tools = append(out.Tools, responsesTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params})
	}
	return out
}

func nonEmpty(s string) string {
	if s == "" {
		return EmptyContent
	}
	return s
}

// responsesEvent is the part of a Responses stream event clawdcode reads.
type responsesEvent struct {
	Type        string `json:"type"`
	Delta       string `json:"delta"`
	ItemID      string `json:"item_id"`
	OutputIndex int    `json:"output_index"`
	Item        *struct {
		ID        string `json:"id"`
		Type      string `json:"type"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"item"`
	Response *struct {
		Model             string `json:"model"`
		Status            string `json:"status"`
		IncompleteDetails *struct {
			Reason string `json:"reason"`
		} `json:"incomplete_details"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Usage *struct {
			InputTokens        int `json:"input_tokens"`
			OutputTokens       int `json:"output_tokens"`
			InputTokensDetails struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"input_tokens_details"`
		} `json:"usage"`
	} `json:"response"`
	// An "error" event carries these at the top level.
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
}

// responsesCall is one function call being streamed, by output index.
type responsesCall struct {
	itemID string
	index  int
	call   chat.ToolCall
	args   strings.Builder
	done   bool
}

// responsesAttempt makes one POST /responses and reads its event stream
// to the end, with the same guarantees as a chat attempt: a Response only
// for a finished reply, every failure an *Error.
func (c *Client) responsesAttempt(ctx context.Context, body []byte, bound replyBound, onDelta func(Delta)) (*Response, error) {
	a := c.beginAttempt(ctx)
	defer a.stop()
	st, clock := a.st, a.clock

	hreq, err := http.NewRequestWithContext(a.ctx, http.MethodPost, c.base+"/responses", bytes.NewReader(body))
	if err != nil {
		return nil, &Error{Kind: KindBadRequest, Message: err.Error(), Err: err}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	if c.key != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.doer.Do(hreq)
	if err != nil {
		if clock.expired.Load() && ctx.Err() == nil {
			return nil, overtime(c.maxTime)
		}
		return nil, c.requestError(err, st, a.idled.Load())
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		se := parseErrorBody(raw)
		se.status = resp.StatusCode
		if se.message == "" {
			se.message = http.StatusText(resp.StatusCode)
		}
		return nil, &Error{Kind: kindOf(se), StatusCode: se.status, Message: se.message, Code: se.code,
			RetryAfter: retryAfter(resp.Header, time.Now())}
	}

	var (
		text     strings.Builder
		calls    []*responsesCall
		out      Response
		finished bool
		events   int
		size     int // bytes of text and tool-call arguments received
		emitted  bool
	)
	byItem := func(id string, index int) *responsesCall {
		for _, rc := range calls {
			if (id != "" && rc.itemID == id) || (id == "" && rc.index == index) {
				return rc
			}
		}
		return nil
	}
	fail := func(le *Error) (*Response, error) {
		le.Partial = emitted
		return nil, le
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), maxEventBytes)
	for sc.Scan() {
		line := sc.Bytes()
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		data = bytes.TrimSpace(data)
		if len(data) == 0 || string(data) == "[DONE]" {
			continue
		}
		var ev responsesEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			return fail(&Error{Kind: KindServer, Message: fmt.Sprintf("malformed stream event: %v", err), Err: err})
		}
		events++
		size += len(ev.Delta)
		if ev.Item != nil {
			size += len(ev.Item.Arguments)
		}
		if le := bound.check(size, events); le != nil {
			return fail(le)
		}
		switch ev.Type {
		case "response.output_text.delta":
			if ev.Delta == "" {
				continue
			}
			text.WriteString(ev.Delta)
			emitted = true
			if onDelta != nil {
				onDelta(Delta{Content: ev.Delta})
			}
		case "response.output_item.added", "response.output_item.done":
			if ev.Item == nil || ev.Item.Type != "function_call" {
				continue
			}
			rc := byItem(ev.Item.ID, ev.OutputIndex)
			if rc == nil {
				rc = &responsesCall{itemID: ev.Item.ID, index: ev.OutputIndex}
				calls = append(calls, rc)
			}
			rc.call.ID, rc.call.Name = ev.Item.CallID, ev.Item.Name
			if ev.Type == "response.output_item.done" {
				rc.done = true
				rc.args.Reset()
				rc.args.WriteString(ev.Item.Arguments)
			}
		case "response.function_call_arguments.delta":
			if rc := byItem(ev.ItemID, ev.OutputIndex); rc != nil && !rc.done {
				rc.args.WriteString(ev.Delta)
			}
		case "response.completed", "response.incomplete":
			finished = true
			if r := ev.Response; r != nil {
				out.Model = r.Model
				if u := r.Usage; u != nil {
					out.Usage = Usage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, CachedTokens: u.InputTokensDetails.CachedTokens}
				}
				if ev.Type == "response.incomplete" {
					out.FinishReason = "length"
					if r.IncompleteDetails != nil && r.IncompleteDetails.Reason == "content_filter" {
						out.FinishReason = "content_filter"
					}
				}
			}
		case "response.failed":
			se := serverError{message: "the server reported the response failed"}
			if ev.Response != nil && ev.Response.Error != nil {
				se.code, se.message = ev.Response.Error.Code, ev.Response.Error.Message
			}
			return fail(&Error{Kind: kindOf(se), Message: se.message, Code: se.code})
		case "error":
			se := serverError{code: jsonText(ev.Code), message: ev.Message}
			return fail(&Error{Kind: kindOf(se), Message: se.message, Code: se.code})
		}
		if finished {
			break
		}
	}
	if !finished {
		err := sc.Err()
		switch {
		case clock.expired.Load() && ctx.Err() == nil:
			return fail(overtime(c.maxTime))
		case a.idled.Load():
			return fail(&Error{Kind: KindNetwork, Message: fmt.Sprintf("the server sent nothing for %v in the middle of the reply", c.idle), Err: ErrIdleTimeout})
		case ctx.Err() != nil:
			return nil, fmt.Errorf("responses: %w", ctx.Err())
		case errors.Is(err, bufio.ErrTooLong):
			return fail(&Error{Kind: KindServer, Message: fmt.Sprintf("a stream event exceeded %d bytes", maxEventBytes), Err: err})
		case events == 0:
			if le := notEventStream(st); le != nil {
				return nil, le
			}
		}
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		msg := "the server closed the stream before the reply was complete"
		if events == 0 {
			msg = "the server closed the stream without sending a reply"
		}
		return fail(&Error{Kind: KindStreamCut, StatusCode: st.status, Message: msg, Err: err})
	}
	out.Content = text.String()
	for _, rc := range calls {
		rc.call.Arguments = rc.args.String()
		out.ToolCalls = append(out.ToolCalls, rc.call)
	}
	if out.FinishReason == "" {
		out.FinishReason = "stop"
		if len(out.ToolCalls) > 0 {
			out.FinishReason = "tool_calls"
		}
	}
	return &out, nil
}

// maxEventBytes bounds one stream event: a whole function call's
// arguments may arrive in one output_item.done.
const maxEventBytes = 64 << 20
