// Package chat is clawdcode's vocabulary for a chat-completions conversation:
// the messages, tool calls and tool definitions that the agent loop, the
// context manager, the token counter and the LLM adapter all speak.
//
// It deliberately has no dependencies, so every other package can use it
// without pulling in go-openai or the storage layer.
package chat

import (
	"encoding/base64"
	"encoding/json"
)

// Roles of a chat-completions message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one entry of a chat-completions request's messages[].
//
// An assistant message may carry ToolCalls; each of them must be answered by
// a RoleTool message with the matching ToolCallID, in order, right after it.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Name       string     `json:"name,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// Images go with a user message's Content as image parts, after the
	// text (chat completions: content [{type:text},{type:image_url}]).
	Images []Image `json:"images,omitempty"`
}

// Image is an image part of a user message: the bytes' media type
// (image/png, image/jpeg, image/gif or image/webp) and the bytes.
type Image struct {
	MediaType string `json:"media_type"`
	Data      []byte `json:"data"`
}

// DataURL is the image as the chat-completions API's image_url.url takes
// it: data:<media type>;base64,<bytes>.
func (i Image) DataURL() string {
	return "data:" + i.MediaType + ";base64," + base64.StdEncoding.EncodeToString(i.Data)
}

// ToolCall is a function call the model asked for. Arguments is the raw
// JSON text as the model produced it (it may be malformed).
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolDef describes a tool offered to the model. Parameters is a JSON Schema
// object.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}
