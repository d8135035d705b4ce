package importer

import (
	"encoding/json"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// ccLine is the part of a Claude Code transcript line the import reads
// (see the package doc for the mapping).
type ccLine struct {
	Type             string         `json:"type"`
	Subtype          string         `json:"subtype"`
	UUID             string         `json:"uuid"`
	ParentUUID       *string        `json:"parentUuid"`
	SessionID        string         `json:"sessionId"`
	CWD              string         `json:"cwd"`
	GitBranch        string         `json:"gitBranch"`
	Timestamp        time.Time      `json:"timestamp"`
	IsSidechain      bool           `json:"isSidechain"`
	IsCompactSummary bool           `json:"isCompactSummary"`
	Content          string         `json:"content"` // system records
	Summary          string         `json:"summary"` // "summary" lines: the session's title
	Message          *ccMessage     `json:"message"`
	CompactMetadata  *ccCompactMeta `json:"compactMetadata"`
	// (toolUseResult, which repeats a tool's output, is not decoded.)
	LogicalParentUUID string `json:"logicalParentUuid"`

	// clawdcode's own records (a session exported with
	// `sessions export --format jsonl` imports as Claude Code's does).
	Tool       *storage.ToolUse    `json:"tool"`
	ToolResult *storage.ToolResult `json:"toolResult"`
	Title      string              `json:"title"`
	Rewind     *storage.RewindInfo `json:"rewind"`
}

type ccMessage struct {
	ID      string    `json:"id"`
	Role    string    `json:"role"`
	Model   string    `json:"model"`
	Content ccContent `json:"content"`
	Usage   *struct {
		InputTokens         int `json:"input_tokens"`
		CacheCreationTokens int `json:"cache_creation_input_tokens"`
		CacheReadTokens     int `json:"cache_read_input_tokens"`
		OutputTokens        int `json:"output_tokens"`
	} `json:"usage"`
}

type ccCompactMeta struct {
	Trigger   string `json:"trigger"`
	PreTokens int    `json:"preTokens"`
	// RetainedUUID is clawdcode's: the first record a compaction kept.
	RetainedUUID string `json:"retainedUuid"`
}

type ccBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   ccContent       `json:"content"` // tool_result's
	IsError   bool            `json:"is_error"`
}

// claude converts Claude Code transcript lines. It keeps what it needs
// between lines: the reply being gathered (Claude Code writes one line per
// content block, the blocks of a reply sharing message.id) and, per
// parent, the last user message under it, to see a rewind.
type claude struct {
	out   *converted
	reply *pendingReply
	// userChild maps a parent uuid to the last user message written
	// under it: a second one under the same parent is a rewind.
	userChild map[string]string
	// billed is the usage the records of each message id carry so far: a
	// reply whose blocks a tool result split (parallel calls) is written
	// as several records, each line repeating the call's usage as it
	// stood (the output growing), so each record carries only what its
	// lines add, and together the call's last usage, once.
	billed map[string]storage.Usage
}

// pendingReply is an assistant reply whose blocks are still arriving.
type pendingReply struct {
	id    string
	first *ccLine
	text  []string
	tools []*storage.Record
	model string
	usage *storage.Usage
}

func newClaude(out *converted) *claude {
	return &claude{out: out, userChild: map[string]string{}, billed: map[string]storage.Usage{}}
}

func (c *claude) line(raw []byte) error {
	var l ccLine
	if err := decodeLine(raw, &l); err != nil {
		return err
	}
	if err := c.materialise(&l); err != nil {
		return err
	}
	if l.IsSidechain {
		return nil // a sub-agent's conversation, not this session's context
	}
	if c.out.sessionID == "" && l.SessionID != "" {
		c.out.sessionID = l.SessionID
	}
	if c.out.cwd == "" && l.CWD != "" {
		c.out.cwd = l.CWD
	}
	switch l.Type {
	case "assistant":
		c.assistant(&l)
	case "user":
		c.flush()
		c.user(&l)
	case "system":
		switch l.Subtype {
		case storage.SubtypeCompactBoundary:
			c.flush()
			c.boundary(&l)
		case storage.SubtypeRewind:
			if l.Rewind != nil {
				c.flush()
				rec := c.base(&l, storage.TypeSystem)
				rec.Subtype = storage.SubtypeRewind
				rec.Rewind = &storage.RewindInfo{UUID: c.out.ref(l.Rewind.UUID)}
				c.out.add(rec)
			}
		}
	case "summary":
		if l.Summary != "" {
			c.out.title = l.Summary
		}
	// clawdcode's record types, as `sessions export --format jsonl`
	// writes them: the same format, so they are taken as they are.
	case storage.TypeToolUse:
		if l.Tool != nil {
			c.own(&l)
		}
	case storage.TypeToolResult:
		if l.ToolResult != nil {
			c.flush()
			c.own(&l)
		}
	case storage.TypeTitle:
		if l.Title != "" {
			c.out.title = l.Title
		}
	}
	// progress, file-history-snapshot, queue-operation and other system
	// records carry nothing a conversation sends to the model.
	return nil
}

// materialise reads back whole the large strings left in the source
// (see largeTexts) that become a message's text or a title: the index
// entry learns from those. A tool result's output, and anything else,
// stays a reference until the store writes it.
func (c *claude) materialise(l *ccLine) error {
	if c.out.large.records() == nil {
		return nil
	}
	fields := []*string{&l.Content, &l.Summary, &l.Title}
	if m := l.Message; m != nil {
		fields = append(fields, &m.Content.text)
		for i := range m.Content.blocks {
			if m.Content.blocks[i].Type == "text" {
				fields = append(fields, &m.Content.blocks[i].Text)
			}
		}
	}
	return c.out.materialise(fields...)
}

// own takes a clawdcode tool_use or tool_result record as it is: after
// the reply it belongs to.
func (c *claude) own(l *ccLine) {
	if l.Tool != nil {
		if c.reply != nil {
			rec := c.base(l, storage.TypeToolUse)
			rec.Tool = l.Tool
			c.reply.tools = append(c.reply.tools, rec)
			return
		}
		rec := c.base(l, storage.TypeToolUse)
		rec.Tool = l.Tool
		c.out.add(rec)
		return
	}
	rec := c.base(l, storage.TypeToolResult)
	rec.ToolResult = l.ToolResult
	c.out.add(rec)
}

func (c *claude) base(l *ccLine, typ string) *storage.Record {
	return &storage.Record{UUID: l.UUID, Timestamp: l.Timestamp, Type: typ, GitBranch: l.GitBranch}
}

func (c *claude) assistant(l *ccLine) {
	if l.Message == nil {
		return
	}
	if c.reply != nil && (l.Message.ID == "" || l.Message.ID != c.reply.id) {
		c.flush()
	}
	if c.reply == nil {
		c.reply = &pendingReply{id: l.Message.ID, first: l, model: l.Message.Model}
	}
	r := c.reply
	if u := l.Message.Usage; u != nil {
		r.usage = &storage.Usage{InputTokens: u.InputTokens + u.CacheCreationTokens + u.CacheReadTokens,
			CacheReadInputTokens: u.CacheReadTokens, OutputTokens: u.OutputTokens}
	}
	text, blocks := l.Message.Content.text, l.Message.Content.blocks
	if text != "" {
		r.text = append(r.text, text)
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if b.Text != "" {
				r.text = append(r.text, b.Text)
			}
		case "tool_use":
			in := b.Input
			if len(in) == 0 || string(in) == "null" {
				in = json.RawMessage("{}")
			}
			rec := c.base(l, storage.TypeToolUse)
			rec.UUID = ""
			rec.Tool = &storage.ToolUse{ID: b.ID, Name: b.Name, Input: in}
			r.tools = append(r.tools, rec)
		}
		// thinking and redacted_thinking blocks are the model's own and
		// are not sent back by clawdcode.
	}
}

// flush writes the reply gathered so far: one assistant record, then its
// tool calls.
func (c *claude) flush() {
	r := c.reply
	if r == nil {
		return
	}
	c.reply = nil
	if len(r.text) == 0 && len(r.tools) == 0 {
		return // thinking only
	}
	rec := c.base(r.first, storage.TypeAssistant)
	usage := &storage.Usage{}
	if r.usage != nil {
		*usage = *r.usage
		if r.id != "" {
			was := c.billed[r.id]
			*usage = storage.Usage{InputTokens: max(0, usage.InputTokens-was.InputTokens),
				CacheReadInputTokens: max(0, usage.CacheReadInputTokens-was.CacheReadInputTokens),
				OutputTokens:         max(0, usage.OutputTokens-was.OutputTokens)}
			c.billed[r.id] = storage.Usage{InputTokens: max(was.InputTokens, r.usage.InputTokens),
				CacheReadInputTokens: max(was.CacheReadInputTokens, r.usage.CacheReadInputTokens),
				OutputTokens:         max(was.OutputTokens, r.usage.OutputTokens)}
		}
	}
	rec.Message = &storage.Message{Role: "assistant", Content: strings.Join(r.text, "\n\n"), Model: modelName(r.model), Usage: usage}
	c.out.add(rec)
	for _, t := range r.tools {
		c.out.add(t)
	}
}

func (c *claude) user(l *ccLine) {
	if l.Message == nil {
		return
	}
	text, blocks := l.Message.Content.text, l.Message.Content.blocks
	var parts []string
	if text != "" {
		parts = append(parts, text)
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if b.Text != "" {
				parts = append(parts, b.Text)
			}
		case "image":
			parts = append(parts, "[image]")
		case "tool_result":
			out := b.Content.text
			if out == "" {
				out = b.Content.blockText()
			}
			rec := c.base(l, storage.TypeToolResult)
			rec.UUID = ""
			res := &storage.ToolResult{ID: b.ToolUseID, Output: out}
			if b.IsError {
				res = &storage.ToolResult{ID: b.ToolUseID, Error: out}
			}
			rec.ToolResult = res
			c.out.add(rec)
		}
	}
	if len(parts) == 0 || len(parts) == 1 && interruptMarker(parts[0]) && !l.IsCompactSummary {
		return
	}
	rec := c.base(l, storage.TypeUser)
	rec.Message = &storage.Message{Role: "user", Content: strings.Join(parts, "\n\n")}
	if l.IsCompactSummary {
		rec.IsCompactSummary = true
		if m := l.CompactMetadata; m != nil {
			rec.CompactMetadata = &storage.CompactMetadata{Trigger: trigger(m.Trigger), PreTokens: m.PreTokens}
		} else if b := c.out.lastBoundary; b != nil {
			rec.CompactMetadata = &storage.CompactMetadata{Trigger: b.CompactMetadata.Trigger, PreTokens: b.CompactMetadata.PreTokens}
		} else {
			rec.CompactMetadata = &storage.CompactMetadata{Trigger: storage.TriggerAuto}
		}
		rec.CompactMetadata.PostTokens = estimateTokens(rec.Message.Content)
		c.out.add(rec)
		return
	}
	// A second message of the user's under the same parent: they went
	// back (Claude Code's rewind, or an edited message) and the first
	// branch is no longer the conversation.
	if l.ParentUUID != nil && *l.ParentUUID != "" {
		if prev, ok := c.userChild[*l.ParentUUID]; ok && c.out.has(prev) {
			rw := c.base(l, storage.TypeSystem)
			rw.UUID = ""
			rw.Subtype = storage.SubtypeRewind
			rw.Rewind = &storage.RewindInfo{UUID: c.out.ref(prev)}
			c.out.add(rw)
		}
		c.userChild[*l.ParentUUID] = l.UUID
	}
	c.out.add(rec)
}

// interruptMarker reports whether text is the marker Claude Code writes
// as a user message when the user stops a turn. It is not something the
// user said: kept, it would be sent joined to the next prompt (consecutive
// user messages are one message), so it is not imported; the reply it
// cut short is imported as it was written.
func interruptMarker(text string) bool {
	switch strings.TrimSpace(text) {
	case "[Request interrupted by user]", "[Request interrupted by user for tool use]":
		return true
	}
	return false
}

func (c *claude) boundary(l *ccLine) {
	rec := c.base(l, storage.TypeSystem)
	rec.Subtype = storage.SubtypeCompactBoundary
	content := l.Content
	if content == "" {
		content = "Conversation compacted"
	}
	rec.Message = &storage.Message{Role: "system", Content: content}
	m := &storage.CompactMetadata{Trigger: storage.TriggerAuto}
	if l.CompactMetadata != nil {
		m.Trigger, m.PreTokens = trigger(l.CompactMetadata.Trigger), l.CompactMetadata.PreTokens
		if u := l.CompactMetadata.RetainedUUID; u != "" && c.out.has(u) {
			// A clawdcode session's boundary: write places its offset.
			m.RetainedUUID = c.out.ref(u)
		}
	}
	// Claude Code resumes from the summary alone: nothing is retained.
	rec.CompactMetadata = m
	c.out.add(rec)
	c.out.lastBoundary = rec
}

func (c *claude) end() { c.flush() }

func trigger(t string) string {
	if t == storage.TriggerManual {
		return t
	}
	return storage.TriggerAuto
}

// ccContent is a message's or a tool result's content: a string, or
// content blocks. It is decoded from the line in place, without a copy of
// its raw bytes first (a tool result can be 100 MB). Content that is
// neither reads as empty, like the source's other oddities.
type ccContent struct {
	text   string
	blocks []ccBlock
}

// UnmarshalJSONFrom decodes the content from the line's decoder. Like
// encoding/json, blocks of which a field has the wrong type are kept with
// the fields that decode (the v2 decoder stops at the first such field:
// only then is the content decoded again the old way).
func (c *ccContent) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case '"':
		return jsonv2.UnmarshalDecode(dec, &c.text)
	case '[':
		raw, err := dec.ReadValue()
		if err != nil {
			return err
		}
		if decodeLine(raw, &c.blocks) != nil {
			c.blocks = nil
			json.Unmarshal(raw, &c.blocks)
		}
		return nil
	}
	return dec.SkipValue()
}

// blockText joins the text of content blocks (a tool result's content).
func (c *ccContent) blockText() string {
	var parts []string
	for _, b := range c.blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "image":
			parts = append(parts, "[image]")
		}
	}
	return strings.Join(parts, "\n")
}

// modelName is the model a reply names, or "unknown" when the source
// does not say.
func modelName(m string) string {
	if m == "" {
		return "unknown"
	}
	return m
}

// estimateTokens is the summary's size for compactMetadata.postTokens when
// the source does not state it: about four bytes a token. A resume counts
// the context itself; this only fills the record.
func estimateTokens(s string) int { return max(1, len(s)/4) }
