package llm

import (
	"encoding/json"
	"fmt"
	"strings"

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
	ToolChoice      string          `json:"tool_choice,omitempty"`
	Stream          bool            `json:"stream"`
	Store           bool            `json:"store"`
	MaxOutputTokens int             `json:"max_output_tokens,omitempty"`
}

// responsesItem is one input item: a message (Role and Content), a
// function call the model made, or its output.
type responsesItem struct {
	Type string `json:"type"`
	Role string `json:"role,omitempty"`
	// Content is a string, or []responsesPart for a message with images.
	Content   any    `json:"content,omitempty"`
	CallID    string `json:"call_id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	Output    string `json:"output,omitempty"`
}

// responsesPart is a part of a message's content in the Responses API:
// input_text, or input_image with the bytes in a data: URL.
type responsesPart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
}

func responsesParts(m chat.Message) []responsesPart {
	parts := []responsesPart{{Type: "input_text", Text: nonEmpty(m.Content)}}
	for _, img := range m.Images {
		parts = append(parts, responsesPart{Type: "input_image", ImageURL: img.DataURL()})
	}
	return parts
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
		case len(m.Images) > 0:
			out.Input = append(out.Input, responsesItem{Type: "message", Role: m.Role, Content: responsesParts(m)})
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
	if len(out.Tools) > 0 {
		out.ToolChoice = req.ToolChoice
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

// responsesDecoder reads a Responses API stream: typed events, text in
// output_text deltas, function calls as output items whose arguments
// stream apart, the end in response.completed (or incomplete).
type responsesDecoder struct {
	text  strings.Builder
	calls []*responsesCall
	out   Response
	done  bool
	bytes int // of text and tool-call arguments received
}

func (d *responsesDecoder) finished() bool { return d.done }
func (d *responsesDecoder) size() int      { return d.bytes }

func (d *responsesDecoder) event(ev sseEvent) (step, error) {
	if len(ev.data) == 0 || string(ev.data) == "[DONE]" {
		return step{}, nil
	}
	var e responsesEvent
	if err := json.Unmarshal(ev.data, &e); err != nil {
		return step{}, &Error{Kind: KindServer, Message: fmt.Sprintf("malformed stream event: %v", err), Err: err}
	}
	if keepAliveEvents[e.Type] {
		return step{}, nil
	}
	d.bytes += len(e.Delta)
	if e.Item != nil {
		d.bytes += len(e.Item.Arguments)
	}
	s := step{content: true}
	switch e.Type {
	case "response.output_text.delta":
		d.text.WriteString(e.Delta)
		s.text = e.Delta
	case "response.reasoning_text.delta", "response.reasoning_summary_text.delta":
		// The reasoning itself (open models) or its summary (OpenAI's):
		// shown as it comes, never part of the reply.
		s.reasoning = e.Delta
	case "response.output_item.added", "response.output_item.done":
		d.item(&e)
	case "response.function_call_arguments.delta":
		if rc := d.byItem(e.ItemID, e.OutputIndex); rc != nil && !rc.done {
			rc.args.WriteString(e.Delta)
		}
	case "response.completed", "response.incomplete":
		d.complete(&e)
		s.end = true
	case "response.failed":
		se := serverError{message: "the server reported the response failed"}
		if e.Response != nil && e.Response.Error != nil {
			se.code, se.message = e.Response.Error.Code, e.Response.Error.Message
		}
		return s, &Error{Kind: kindOf(se), Message: se.message, Code: se.code}
	case "error":
		se := serverError{code: jsonText(e.Code), message: e.Message}
		return s, &Error{Kind: kindOf(se), Message: se.message, Code: se.code}
	}
	return s, nil
}

func (d *responsesDecoder) byItem(id string, index int) *responsesCall {
	for _, rc := range d.calls {
		if (id != "" && rc.itemID == id) || (id == "" && rc.index == index) {
			return rc
		}
	}
	return nil
}

// item notes a function call output item as it is added, and takes its
// whole arguments when it is done.
func (d *responsesDecoder) item(e *responsesEvent) {
	if e.Item == nil || e.Item.Type != "function_call" {
		return
	}
	rc := d.byItem(e.Item.ID, e.OutputIndex)
	if rc == nil {
		rc = &responsesCall{itemID: e.Item.ID, index: e.OutputIndex}
		d.calls = append(d.calls, rc)
	}
	rc.call.ID, rc.call.Name = e.Item.CallID, e.Item.Name
	if e.Type == "response.output_item.done" {
		rc.done = true
		rc.args.Reset()
		rc.args.WriteString(e.Item.Arguments)
	}
}

// complete takes the model, the usage and why an incomplete reply stopped.
func (d *responsesDecoder) complete(e *responsesEvent) {
	d.done = true
	r := e.Response
	if r == nil {
		return
	}
	d.out.Model = r.Model
	if u := r.Usage; u != nil {
		d.out.Usage = Usage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, CachedTokens: u.InputTokensDetails.CachedTokens}
	}
	if e.Type == "response.incomplete" {
		d.out.FinishReason = "length"
		if r.IncompleteDetails != nil && r.IncompleteDetails.Reason == "content_filter" {
			d.out.FinishReason = "content_filter"
		}
	}
}

func (d *responsesDecoder) response() *Response {
	out := d.out
	out.Content = d.text.String()
	for _, rc := range d.calls {
		rc.call.Arguments = rc.args.String()
		out.ToolCalls = append(out.ToolCalls, rc.call)
	}
	if out.FinishReason == "" {
		out.FinishReason = "stop"
		if len(out.ToolCalls) > 0 {
			out.FinishReason = "tool_calls"
		}
	}
	return &out
}
