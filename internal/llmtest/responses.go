package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// responsesBody is the part of a POST /v1/responses body the server
// reads.
type responsesBody struct {
	Model           *string         `json:"model"`
	Instructions    string          `json:"instructions"`
	Input           json.RawMessage `json:"input"`
	Tools           []responsesTool `json:"tools"`
	Stream          bool            `json:"stream"`
	MaxOutputTokens *int            `json:"max_output_tokens"`
	ToolChoice      any             `json:"tool_choice"`
}

type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    string          `json:"output"`
}

// responsesAsChat restates a Responses request as the chat-completions
// body it is equivalent to, so that one validator and one recorder serve
// both APIs: instructions become the system message, function_call items
// the assistant's tool_calls, function_call_output items tool messages.
func responsesAsChat(body []byte) ([]byte, error) {
	var rb responsesBody
	if err := json.Unmarshal(body, &rb); err != nil {
		return nil, err
	}
	var items []responsesItem
	var text string
	if json.Unmarshal(rb.Input, &text) == nil {
		items = []responsesItem{{Type: "message", Role: "user", Content: rb.Input}}
	} else if len(rb.Input) > 0 {
		if err := json.Unmarshal(rb.Input, &items); err != nil {
			return nil, err
		}
	}
	var msgs []map[string]any
	if rb.Instructions != "" {
		msgs = append(msgs, map[string]any{"role": "system", "content": rb.Instructions})
	}
	for _, it := range items {
		switch it.Type {
		case "function_call":
			last := len(msgs) - 1
			if last < 0 || msgs[last]["role"] != "assistant" {
				msgs = append(msgs, map[string]any{"role": "assistant", "content": nil})
				last++
			}
			calls, _ := msgs[last]["tool_calls"].([]any)
			msgs[last]["tool_calls"] = append(calls, map[string]any{"id": it.CallID, "type": "function",
				"function": map[string]any{"name": it.Name, "arguments": it.Arguments}})
		case "function_call_output":
			msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": it.CallID, "content": it.Output})
		case "message", "":
			role := it.Role
			if role == "developer" {
				role = "system"
			}
			msgs = append(msgs, map[string]any{"role": role, "content": responsesContent(it.Content)})
		default:
			return nil, fmt.Errorf("unknown input item type %q", it.Type)
		}
	}
	tools := make([]any, 0, len(rb.Tools))
	for _, t := range rb.Tools {
		tools = append(tools, map[string]any{"type": "function", "function": map[string]any{
			"name": t.Name, "description": t.Description, "parameters": t.Parameters}})
	}
	chat := map[string]any{"messages": msgs, "stream": rb.Stream, "stream_options": map[string]any{"include_usage": true}}
	if rb.Model != nil {
		chat["model"] = *rb.Model
	}
	if len(tools) > 0 {
		chat["tools"] = tools
	}
	if rb.MaxOutputTokens != nil {
		chat["max_completion_tokens"] = *rb.MaxOutputTokens
	}
	if rb.ToolChoice != nil {
		chat["tool_choice"] = rb.ToolChoice
	}
	return json.Marshal(chat)
}

// writeResponsesStream renders the completion as the Responses API's
// event stream: created, each output item added / streamed / done, then
// completed with the usage.
func (c completion) writeResponsesStream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	seq := 0
	var events [][]byte
	emit := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		b, _ := json.Marshal(fields)
		events = append(events, []byte("event: "+typ+"\ndata: "+string(b)+"\n\n"))
	}
	respID := strings.Replace(c.id, "chatcmpl", "resp", 1)
	resp := func(status string, output []any) map[string]any {
		r := map[string]any{"id": respID, "object": "response", "created_at": c.created, "status": status,
			"model": c.model, "output": output}
		if status == "completed" {
			u := c.usage()
			r["usage"] = map[string]any{"input_tokens": u["prompt_tokens"], "output_tokens": u["completion_tokens"],
				"total_tokens": u["total_tokens"], "input_tokens_details": map[string]any{"cached_tokens": u["prompt_tokens_details"].(map[string]int)["cached_tokens"]},
				"output_tokens_details": map[string]any{"reasoning_tokens": 0}}
		}
		return r
	}
	emit("response.created", map[string]any{"response": resp("in_progress", []any{})})
	var output []any
	if c.reply.Text != "" {
		id := "msg_" + respID
		idx := len(output)
		emit("response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{
			"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}})
		for _, piece := range splitPieces(c.reply.Text, 24) {
			emit("response.output_text.delta", map[string]any{"item_id": id, "output_index": idx, "content_index": 0, "delta": piece})
		}
		emit("response.output_text.done", map[string]any{"item_id": id, "output_index": idx, "content_index": 0, "text": c.reply.Text})
		item := map[string]any{"id": id, "type": "message", "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": c.reply.Text, "annotations": []any{}}}}
		emit("response.output_item.done", map[string]any{"output_index": idx, "item": item})
		output = append(output, item)
	}
	for i, tc := range c.reply.ToolCalls {
		id := fmt.Sprintf("fc_%s_%d", respID, i)
		idx := len(output)
		emit("response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{
			"id": id, "type": "function_call", "status": "in_progress", "call_id": tc.ID, "name": tc.Name, "arguments": ""}})
		for _, piece := range splitPieces(tc.Arguments, 8) {
			emit("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": idx, "delta": piece})
		}
		emit("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": idx, "arguments": tc.Arguments})
		item := map[string]any{"id": id, "type": "function_call", "status": "completed", "call_id": tc.ID, "name": tc.Name, "arguments": tc.Arguments}
		emit("response.output_item.done", map[string]any{"output_index": idx, "item": item})
		output = append(output, item)
	}
	emit("response.completed", map[string]any{"response": resp("completed", output)})

	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	for i := 0; ; i++ {
		if c.reply.StreamError != "" && i == min(c.reply.ErrorAfter, len(events)) {
			var e map[string]any
			_ = json.Unmarshal([]byte(c.reply.StreamError), &e)
			if e == nil {
				e = map[string]any{"message": c.reply.StreamError}
			}
			e["type"] = "error"
			b, _ := json.Marshal(e)
			_, _ = io.WriteString(w, "event: error\ndata: "+string(b)+"\n\n")
			flush()
			return
		}
		if c.reply.Cut && i == min(c.reply.CutAfter, len(events)) {
			flush()
			panic(http.ErrAbortHandler)
		}
		if i == len(events) {
			break
		}
		_, _ = w.Write(events[i])
		flush()
	}
}
