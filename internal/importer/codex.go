package importer

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// cxLine is one line of a Codex rollout: {timestamp, type, payload}.
type cxLine struct {
	Timestamp time.Time       `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type cxMeta struct {
	ID  string `json:"id"`
	CWD string `json:"cwd"`
	Git *struct {
		Branch string `json:"branch"`
	} `json:"git"`
}

// cxItem is a response item (also the items of a replacement history).
type cxItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   []cxPart        `json:"content"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"` // custom tool calls
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
}

type cxPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type cxCompacted struct {
	Message            string   `json:"message"`
	ReplacementHistory []cxItem `json:"replacement_history"`
}

// codex converts Codex rollout lines.
type codex struct {
	out    *converted
	branch string
	model  string // from the turn context
	// inReply is true after an assistant message or a tool call, until
	// the next user message or tool output: tool calls then belong to the
	// reply before them.
	inReply bool
	// total is the rollout's running token total as of the last
	// token_count event: an event that adds to it is a model call's usage.
	total cxTokens
}

// cxTokens is a token_count event's usage (input includes the cached part).
type cxTokens struct {
	Input  int `json:"input_tokens"`
	Cached int `json:"cached_input_tokens"`
	Output int `json:"output_tokens"`
}

// cxTokenCount is the payload of an event_msg line: a token_count event
// reports the rollout's running total and the last call's usage.
type cxTokenCount struct {
	Type string `json:"type"`
	Info *struct {
		Total cxTokens `json:"total_token_usage"`
		Last  cxTokens `json:"last_token_usage"`
	} `json:"info"`
}

// tokenCount is the usage a token_count event adds since the one before
// (Codex repeats an event with nothing new, say after a rate-limit
// update), nil when it adds nothing. A total that went down (a rollout
// started over) counts the event's last call.
func (c *codex) tokenCount(payload json.RawMessage) *storage.Usage {
	var ev cxTokenCount
	if json.Unmarshal(payload, &ev) != nil || ev.Type != "token_count" || ev.Info == nil {
		return nil
	}
	t, prev := ev.Info.Total, c.total
	c.total = t
	d := cxTokens{t.Input - prev.Input, t.Cached - prev.Cached, t.Output - prev.Output}
	if d.Input < 0 || d.Cached < 0 || d.Output < 0 {
		d = ev.Info.Last
	}
	if d.Input == 0 && d.Output == 0 {
		return nil
	}
	return &storage.Usage{InputTokens: d.Input, CacheReadInputTokens: min(d.Cached, d.Input), OutputTokens: d.Output}
}

func newCodex(out *converted) *codex { return &codex{out: out} }

// prime takes in a line before the pass's start what the lines of the
// pass need of it, writing nothing: the git branch of the session's meta,
// the model of the latest turn context and whether a reply is open. A
// pass that starts inside a turn (the rollout grew while Codex ran) then
// names the model a one-pass import would, and a call right after the
// reply's text joins that reply.
func (c *codex) prime(raw []byte) {
	var l cxLine
	if json.Unmarshal(raw, &l) != nil {
		return
	}
	switch l.Type {
	case "session_meta":
		var m cxMeta
		if json.Unmarshal(l.Payload, &m) == nil && m.Git != nil {
			c.branch = m.Git.Branch
		}
	case "turn_context":
		c.turnContext(l.Payload)
	case "response_item":
		var it cxItem
		if json.Unmarshal(l.Payload, &it) == nil {
			c.inReply = replyAfter(&it, c.inReply)
		}
	case "compacted":
		c.inReply = false
	case "event_msg":
		c.tokenCount(l.Payload)
	}
}

// replyAfter is whether a reply is open after item it, given whether one
// was before: an assistant message with text or a tool call opens one (or
// goes on with it), a user's own message or a tool's output closes it.
func replyAfter(it *cxItem, open bool) bool {
	switch it.Type {
	case "message":
		text := partsText(it.Content)
		switch {
		case it.Role == "assistant" && text != "":
			return true
		case it.Role == "user" && !injected(text):
			return false
		}
	case "function_call", "custom_tool_call", "local_shell_call":
		return true
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		return false
	}
	return open
}

func (c *codex) turnContext(payload json.RawMessage) {
	var tc struct {
		Model string `json:"model"`
	}
	if json.Unmarshal(payload, &tc) == nil && tc.Model != "" {
		c.model = tc.Model
	}
}

func (c *codex) line(raw []byte) error {
	var l cxLine
	if err := json.Unmarshal(raw, &l); err != nil {
		return err
	}
	switch l.Type {
	case "session_meta":
		var m cxMeta
		if err := json.Unmarshal(l.Payload, &m); err != nil {
			return err
		}
		if err := c.out.materialise(&m.ID, &m.CWD); err != nil {
			return err
		}
		if c.out.sessionID == "" {
			c.out.sessionID = m.ID
		}
		if c.out.cwd == "" {
			c.out.cwd = m.CWD
		}
		if m.Git != nil {
			c.branch = m.Git.Branch
		}
	case "response_item":
		var it cxItem
		if err := json.Unmarshal(l.Payload, &it); err != nil {
			return err
		}
		if err := c.materialise(&it); err != nil {
			return err
		}
		c.item(&it, l.Timestamp)
	case "turn_context":
		c.turnContext(l.Payload)
	case "compacted":
		var cp cxCompacted
		if err := json.Unmarshal(l.Payload, &cp); err != nil {
			return err
		}
		if err := c.out.materialise(&cp.Message); err != nil {
			return err
		}
		for i := range cp.ReplacementHistory {
			if err := c.materialise(&cp.ReplacementHistory[i]); err != nil {
				return err
			}
		}
		c.compacted(&cp, l.Timestamp)
	case "event_msg":
		// A model call's tokens: a record of their own, since the reply
		// they belong to was converted before they came.
		if u := c.tokenCount(l.Payload); u != nil {
			r := c.rec(storage.TypeSystem, l.Timestamp)
			r.Subtype = storage.SubtypeModelUsage
			r.ModelUsage = &storage.ModelUsage{Model: modelName(c.model), Usage: *u}
			c.out.add(r)
		}
	}
	// turn_context, world_state, other events: nothing the conversation
	// sends.
	return nil
}

// materialise reads back whole the large strings left in the source
// (see largeTexts) that become a message's text or a tool's input; a
// tool's output stays a reference until the store writes it.
func (c *codex) materialise(it *cxItem) error {
	if c.out.large.records() == nil {
		return nil
	}
	fields := []*string{&it.Arguments, &it.Input}
	for i := range it.Content {
		fields = append(fields, &it.Content[i].Text)
	}
	if len(it.Output) > 0 && it.Output[0] != '"' {
		// Not a string: outputText reads it in parts, or whole.
		var err error
		if it.Output, err = c.out.large.materialiseJSON(it.Output); err != nil {
			return err
		}
	}
	return c.out.materialise(fields...)
}

func (c *codex) rec(typ string, ts time.Time) *storage.Record {
	return &storage.Record{Type: typ, Timestamp: ts, GitBranch: c.branch}
}

func (c *codex) item(it *cxItem, ts time.Time) {
	open := c.inReply
	c.inReply = replyAfter(it, open)
	switch it.Type {
	case "message":
		text := partsText(it.Content)
		switch {
		case it.Role == "assistant":
			if text == "" {
				return
			}
			r := c.rec(storage.TypeAssistant, ts)
			r.Message = &storage.Message{Role: "assistant", Content: text, Model: modelName(c.model), Usage: &storage.Usage{}}
			c.out.add(r)
		case it.Role == "user" && !injected(text):
			r := c.rec(storage.TypeUser, ts)
			r.Message = &storage.Message{Role: "user", Content: text}
			c.out.add(r)
		}
		// developer messages and Codex's injected context are Codex's
		// own instructions; clawdcode sends its own.
	case "function_call", "custom_tool_call", "local_shell_call":
		if !open {
			// A call with no text before it: its reply had none.
			r := c.rec(storage.TypeAssistant, ts)
			r.Message = &storage.Message{Role: "assistant", Model: modelName(c.model), Usage: &storage.Usage{}}
			c.out.add(r)
		}
		in := json.RawMessage(it.Arguments)
		if it.Type == "custom_tool_call" || !json.Valid(in) || len(in) == 0 || in[0] != '{' {
			b, _ := json.Marshal(map[string]string{"input": it.Input + it.Arguments})
			in = b
		}
		r := c.rec(storage.TypeToolUse, ts)
		r.Tool = &storage.ToolUse{ID: it.CallID, Name: it.Name, Input: in}
		c.out.add(r)
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		r := c.rec(storage.TypeToolResult, ts)
		r.ToolResult = &storage.ToolResult{ID: it.CallID, Output: outputText(it.Output)}
		c.out.add(r)
	}
	// reasoning items are the model's own.
}

// compacted becomes a boundary and a summary. After it Codex's history is
// the replacement history (the user's messages kept and, last, the
// summary) and what follows; the summary record carries the replacement
// history's messages, so a resume sends what Codex would.
func (c *codex) compacted(cp *cxCompacted, ts time.Time) {
	var parts []string
	for _, it := range cp.ReplacementHistory {
		if it.Type != "message" || it.Role != "user" {
			continue
		}
		if t := partsText(it.Content); t != "" && !injected(t) {
			parts = append(parts, t)
		}
	}
	if len(parts) == 0 && cp.Message != "" {
		parts = append(parts, cp.Message)
	}
	b := c.rec(storage.TypeSystem, ts)
	b.Subtype = storage.SubtypeCompactBoundary
	b.Message = &storage.Message{Role: "system", Content: "Conversation compacted"}
	b.CompactMetadata = &storage.CompactMetadata{Trigger: storage.TriggerAuto}
	c.out.add(b)
	c.out.lastBoundary = b
	s := c.rec(storage.TypeUser, ts)
	s.IsCompactSummary = true
	s.Message = &storage.Message{Role: "user", Content: strings.Join(parts, "\n\n")}
	s.CompactMetadata = &storage.CompactMetadata{Trigger: storage.TriggerAuto, PostTokens: estimateTokens(s.Message.Content)}
	c.out.add(s)
	c.inReply = false
}

func (c *codex) end() {}

func partsText(ps []cxPart) string {
	var out []string
	for _, p := range ps {
		switch p.Type {
		case "input_text", "output_text", "text":
			if p.Text != "" {
				out = append(out, p.Text)
			}
		case "input_image":
			out = append(out, "[image]")
		}
	}
	return strings.Join(out, "\n\n")
}

// injected reports the context Codex adds as user messages itself.
func injected(text string) bool {
	t := strings.TrimSpace(text)
	for _, p := range []string{"<environment_context>", "<user_instructions>", "<turn_aborted>", "# AGENTS.md instructions"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// outputText reads a tool output: a string, or an object with content
// (older rollouts) or content items.
func outputText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &o) == nil && len(o.Content) > 0 {
		if json.Unmarshal(o.Content, &s) == nil {
			return s
		}
		var ps []cxPart
		if json.Unmarshal(o.Content, &ps) == nil {
			return partsText(ps)
		}
	}
	var ps []cxPart
	if json.Unmarshal(raw, &ps) == nil {
		return partsText(ps)
	}
	return string(raw)
}
