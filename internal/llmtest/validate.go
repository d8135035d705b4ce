package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// wireRequest is a chat request as sent, decoded in one pass: a bench
// decodes thousands of requests of up to a window's size.
type wireRequest struct {
	Model *string `json:"model"`
	// Messages is nil when absent or null, empty for [].
	Messages      *[]wireMessage `json:"messages"`
	Tools         []wireTool     `json:"tools"`
	Stream        bool           `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxCompletionTokens *int `json:"max_completion_tokens"`
	MaxTokens           *int `json:"max_tokens"`
	ToolChoice          any  `json:"tool_choice"`

	messages []wireMessage
}

// wireContent is a message's content: whether it was sent (not absent,
// not null) and its text flattened (see contentText).
type wireContent struct {
	present bool
	text    string
	parts   json.RawMessage // an array of parts, kept for its images
}

func (c *wireContent) UnmarshalJSON(raw []byte) error {
	if string(raw) == "null" {
		*c = wireContent{}
		return nil
	}
	*c = wireContent{present: true, text: contentText(raw)}
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
		c.parts = bytes.Clone(t)
	}
	return nil
}

type wireMessage struct {
	Role       string         `json:"role"`
	Content    wireContent    `json:"content"`
	Name       string         `json:"name"`
	ToolCalls  []wireToolCall `json:"tool_calls"`
	ToolCallID string         `json:"tool_call_id"`
}

type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// decodeRequest parses the body into req's decoded fields and returns the
// wire form for validation.
func decodeRequest(req *Request, body []byte) (*wireRequest, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, err
	}
	if w.Messages != nil {
		w.messages = *w.Messages
	}
	if w.Model != nil {
		req.Model = *w.Model
	}
	req.Stream = w.Stream
	req.IncludeUsage = w.StreamOptions != nil && w.StreamOptions.IncludeUsage
	if w.MaxCompletionTokens != nil {
		req.MaxCompletionTokens = *w.MaxCompletionTokens
	}
	if w.MaxTokens != nil {
		req.MaxTokens = *w.MaxTokens
	}
	if c, ok := w.ToolChoice.(string); ok {
		req.ToolChoice = c
	}
	for _, m := range w.messages {
		cm := chat.Message{Role: m.Role, Content: m.Content.text, Name: m.Name, ToolCallID: m.ToolCallID}
		if m.Content.parts != nil {
			images, err := contentImages(m.Content.parts)
			if err != nil {
				return nil, err
			}
			cm.Images = images
		}
		for _, tc := range m.ToolCalls {
			cm.ToolCalls = append(cm.ToolCalls, chat.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		req.Messages = append(req.Messages, cm)
	}
	for _, t := range w.Tools {
		req.Tools = append(req.Tools, chat.ToolDef{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	return &w, nil
}

// contentText flattens a content field: a string, an array of text parts,
// or null/absent.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}

// violation is a rejection with OpenAI's wording.
type violation struct {
	message string
	param   string
	code    string
}

func (v *violation) body() string {
	return errorBody(v.message, "invalid_request_error", v.param, v.code)
}

// Messages of OpenAI's real 400 answers (typo "preceeding" included, as the
// API spells it).
const (
	msgToolWithoutCalls = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
	msgUnansweredCalls  = "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s"
	msgUnknownCallID    = "Invalid parameter: 'tool_call_id' of '%s' not found in 'tool_calls' of previous message."
)

// validate applies the real API's structural rules to messages[].
func validate(w *wireRequest, rejectConsecutiveUser bool) *violation {
	if w.Model == nil || *w.Model == "" {
		return &violation{message: "you must provide a model parameter"}
	}
	if w.Messages == nil {
		return &violation{message: "Missing required parameter: 'messages'.", param: "messages", code: "missing_required_parameter"}
	}
	if len(w.messages) == 0 {
		return &violation{message: "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", param: "messages", code: "empty_array"}
	}

	// The tool-call run in progress: the assistant message that opened it,
	// its ids in order, and which of them have been answered.
	runFrom := -1
	var runIDs []string
	answered := map[string]bool{}
	unanswered := func() []string {
		var ids []string
		for _, id := range runIDs {
			if !answered[id] {
				ids = append(ids, id)
			}
		}
		return ids
	}

	for i, m := range w.messages {
		switch m.Role {
		case "system", "developer", "user", "assistant", "tool":
		default:
			return &violation{
				message: fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", m.Role),
				param:   fmt.Sprintf("messages[%d].role", i),
				code:    "invalid_value",
			}
		}
		if m.Role != "tool" && runFrom >= 0 {
			if ids := unanswered(); len(ids) > 0 {
				return &violation{message: fmt.Sprintf(msgUnansweredCalls, strings.Join(ids, ", ")), param: fmt.Sprintf("messages.[%d].role", runFrom)}
			}
			runFrom, runIDs = -1, nil
			clear(answered)
		}
		needsContent := m.Role != "assistant" || len(m.ToolCalls) == 0
		if needsContent && !m.Content.present {
			return &violation{
				message: fmt.Sprintf("Missing required parameter: 'messages.[%d].content'.", i),
				param:   fmt.Sprintf("messages.[%d].content", i),
				code:    "missing_required_parameter",
			}
		}
		switch m.Role {
		case "tool":
			if runFrom < 0 || answered[m.ToolCallID] {
				return &violation{message: msgToolWithoutCalls, param: fmt.Sprintf("messages.[%d].role", i)}
			}
			found := false
			for _, id := range runIDs {
				found = found || id == m.ToolCallID
			}
			if !found {
				return &violation{message: fmt.Sprintf(msgUnknownCallID, m.ToolCallID), param: fmt.Sprintf("messages.[%d].tool_call_id", i)}
			}
			answered[m.ToolCallID] = true
		case "assistant":
			if len(m.ToolCalls) > 0 {
				runFrom = i
				for j, tc := range m.ToolCalls {
					if tc.ID == "" {
						return &violation{message: fmt.Sprintf("Missing required parameter: 'messages.[%d].tool_calls.[%d].id'.", i, j), param: fmt.Sprintf("messages.[%d].tool_calls.[%d].id", i, j), code: "missing_required_parameter"}
					}
					if tc.Function.Name == "" {
						return &violation{message: fmt.Sprintf("Missing required parameter: 'messages.[%d].tool_calls.[%d].function.name'.", i, j), param: fmt.Sprintf("messages.[%d].tool_calls.[%d].function.name", i, j), code: "missing_required_parameter"}
					}
					runIDs = append(runIDs, tc.ID)
				}
			}
		case "user":
			if rejectConsecutiveUser && i > 0 && w.messages[i-1].Role == "user" {
				return &violation{message: fmt.Sprintf("llmtest: messages.[%d] is a second user message in a row (Options.RejectConsecutiveUser); merge consecutive user turns", i), param: fmt.Sprintf("messages.[%d].role", i)}
			}
		}
	}
	if ids := unanswered(); runFrom >= 0 && len(ids) > 0 {
		return &violation{message: fmt.Sprintf(msgUnansweredCalls, strings.Join(ids, ", ")), param: fmt.Sprintf("messages.[%d].role", runFrom)}
	}
	return nil
}

// maxToolName is the longest function name the API takes.
const maxToolName = 64

// validateToolNames applies the API's rule for function names: 1 to 64
// characters of [a-zA-Z0-9_-].
func validateToolNames(tools []wireTool) *violation {
	for i, t := range tools {
		name, param := t.Function.Name, fmt.Sprintf("tools[%d].function.name", i)
		if len(name) > maxToolName {
			return &violation{
				message: fmt.Sprintf("Invalid '%s': string too long. Expected a string with maximum length %d, but got a string with length %d instead.", param, maxToolName, len(name)),
				param:   param, code: "string_above_max_length",
			}
		}
		if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			return &violation{
				message: fmt.Sprintf("Invalid '%s': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", param),
				param:   param, code: "invalid_value",
			}
		}
	}
	return nil
}
