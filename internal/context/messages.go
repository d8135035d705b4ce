package contextmgr

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// buildMessages rebuilds the chat-completions messages[] (without the system
// prompt) from records, so that any sequence of records yields a request a
// strict server accepts:
//
//   - the latest summary record becomes the first message (a user message),
//     and a reorientation record (a resume's packet) part of the user
//     message before it; older summaries, every other system record and every record of another type
//     (a session title, a type added later) are left out, without breaking
//     the tool round or the user turn they sit in;
//   - an assistant record carries the tool_use records that follow it as its
//     tool calls (arguments = the recorded input when it is a JSON object,
//     else "{}"), and each call is answered right after it, in call order,
//     by a tool message: its recorded result, or an "interrupted" result
//     when none was recorded;
//   - tool results without a matching open call are dropped, as are tool
//     uses without an id or a name and repeated call ids within one reply;
//   - a tool_use with no assistant record before it gets an empty assistant
//     message of its own;
//   - an assistant message with neither text nor tool calls is left out;
//   - consecutive user messages (a turn persisted without a reply, then a
//     new one) are merged into one, joined by a blank line — but for the
//     summary: a user message after it stays a message of its own, with
//     summaryAck between them, so that the model tells the summary from
//     the user's words and a server that wants the roles to alternate
//     still accepts the request.
//
// It also reports how many tool calls it had to answer as interrupted:
// those answers are in no record, so the manager counts them apart.
func buildMessages(records []*storage.Record) ([]chat.Message, int) {
	return build(records, false, nil)
}

// standIns is buildMessages' count of calls answered as interrupted,
// without the messages: the builder runs as it would, but joins no text.
func standIns(records []*storage.Record) int {
	_, n := build(records, true, nil)
	return n
}

// joins remembers the user messages a build joined from several records
// (a message and the resume packets after it), by their first record, so
// that the next build of the same records takes the joined text instead of
// copying it again: a turn builds its request more than once (before and
// after a compaction, and for the files a summary carries). It keeps the
// last build's joins; a text is taken only when it is its parts joined.
type joins struct{ last, next map[*storage.Record]string }

func (j *joins) get(k *storage.Record) (string, bool) {
	if j == nil {
		return "", false
	}
	s, ok := j.last[k]
	return s, ok
}

func (j *joins) put(k *storage.Record, s string) {
	if j == nil {
		return
	}
	if j.next == nil {
		j.next = map[*storage.Record]string{}
	}
	j.next[k] = s
}

// done ends a build: its joins are the ones kept.
func (j *joins) done() {
	if j != nil {
		j.last, j.next = j.next, nil
	}
}

// buildMessagesWith is buildMessages taking joined texts from, and giving
// them to, memo.
func buildMessagesWith(records []*storage.Record, memo *joins) ([]chat.Message, int) {
	defer memo.done()
	return build(records, false, memo)
}

func build(records []*storage.Record, tally bool, memo *joins) ([]chat.Message, int) {
	b := newBuilder(records, tally, memo)
	for _, r := range records {
		if r == nil {
			continue
		}
		switch r.Type {
		case storage.TypeUser:
			if r.IsCompactSummary {
				continue
			}
			b.closeGroup()
			b.endSummary()
			b.user(r, messageContent(r))
			if r.Message != nil {
				b.images = append(b.images, r.Message.Images...)
			}
		case storage.TypeSystem:
			// A resume's re-orientation packet goes with the user message
			// before it (every one: a resume restores the context in force).
			if r.Subtype == storage.SubtypeReorientation {
				b.closeGroup()
				b.user(r, messageContent(r))
			}
		case storage.TypeAssistant:
			b.closeGroup()
			b.open = true
			b.reply = chat.Message{Role: chat.RoleAssistant, Content: messageContent(r)}
		case storage.TypeToolUse:
			if r.Tool == nil || r.Tool.ID == "" || r.Tool.Name == "" {
				continue
			}
			if !b.open {
				b.open = true
				b.reply = chat.Message{Role: chat.RoleAssistant}
			}
			if b.hasCall(r.Tool.ID) {
				continue
			}
			b.reply.ToolCalls = append(b.reply.ToolCalls, toolCall(r.Tool))
		case storage.TypeToolResult:
			if r.ToolResult == nil || !b.open || !b.hasCall(r.ToolResult.ID) {
				continue
			}
			if b.results == nil {
				b.results = make(map[string]string)
			}
			if _, dup := b.results[r.ToolResult.ID]; !dup {
				b.results[r.ToolResult.ID] = toolResultContent(r.ToolResult)
			}
		}
	}
	b.closeGroup()
	b.flushUser()
	return b.out, b.synthesized
}

// newBuilder is a builder for records, opened with the latest summary
// among them when there is one.
func newBuilder(records []*storage.Record, tally bool, memo *joins) *messageBuilder {
	var summary *storage.Record
	for _, r := range records {
		if r != nil && r.IsSummary() {
			summary = r
		}
	}
	b := &messageBuilder{tally: tally, memo: memo}
	if !tally {
		b.out = make([]chat.Message, 0, len(records)+1)
	}
	if summary != nil {
		b.user(summary, messageContent(summary))
		b.summaryOpen = true
	}
	return b
}

// messageBuilder accumulates the open assistant reply (its calls and the
// results seen so far) until the next user or assistant record closes it.
type messageBuilder struct {
	out     []chat.Message
	open    bool
	reply   chat.Message
	results map[string]string

	pendingUser []string // the user message being collected
	images      []storage.ImageRef
	hasUser     bool
	// summaryOpen: the summary is the user message being collected.
	summaryOpen bool

	synthesized int // calls answered as interrupted
	// tally: only synthesized is wanted; no message is put together.
	tally bool
	// memo holds the joined messages of the last build; pendingFrom is the
	// record of pendingUser's first part.
	memo        *joins
	pendingFrom *storage.Record
}

// summaryAck is the assistant's turn between the summary and the user
// message after it. It is in no record: the accountant counts it with
// the summary.
var summaryAck = chat.Message{Role: chat.RoleAssistant, Content: "Understood: I continue from this summary."}

// endSummary closes the summary as a message of its own, answered by
// summaryAck, before a user message.
func (b *messageBuilder) endSummary() {
	if !b.summaryOpen {
		return
	}
	b.flushUser()
	b.out = append(b.out, summaryAck)
}

func (b *messageBuilder) hasCall(id string) bool {
	for _, c := range b.reply.ToolCalls {
		if c.ID == id {
			return true
		}
	}
	return false
}

// user adds a user message; consecutive ones are collected and joined once
// (joining as they come would copy the text again for every orphan turn).
func (b *messageBuilder) user(from *storage.Record, content string) {
	if len(b.pendingUser) == 0 {
		b.pendingFrom = from
	}
	b.pendingUser = append(b.pendingUser, content)
	b.hasUser = true
}

func (b *messageBuilder) flushUser() {
	if !b.hasUser {
		return
	}
	parts := b.pendingUser[:0]
	for _, p := range b.pendingUser {
		if p != "" {
			parts = append(parts, p)
		}
	}
	b.summaryOpen = false
	if b.tally {
		b.pendingUser, b.images, b.hasUser = b.pendingUser[:0], nil, false
		return
	}
	msg := chat.Message{Role: chat.RoleUser, Content: b.joined(parts)}
	msg.Images, msg.Content = loadImages(b.images, msg.Content)
	b.out = append(b.out, msg)
	b.pendingUser, b.images, b.hasUser = b.pendingUser[:0], nil, false
}

// joined is parts joined by a blank line, from the last build when it
// joined the same.
func (b *messageBuilder) joined(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "\n\n")
	}
	s, ok := b.memo.get(b.pendingFrom)
	if !ok || !joinOf(s, parts) {
		s = strings.Join(parts, "\n\n")
	}
	b.memo.put(b.pendingFrom, s)
	return s
}

// joinOf reports whether s is parts joined by a blank line (a comparison,
// no copy).
func joinOf(s string, parts []string) bool {
	for i, p := range parts {
		if i > 0 {
			if !strings.HasPrefix(s, "\n\n") {
				return false
			}
			s = s[2:]
		}
		if !strings.HasPrefix(s, p) {
			return false
		}
		s = s[len(p):]
	}
	return s == ""
}

func (b *messageBuilder) closeGroup() {
	if !b.open {
		return
	}
	b.open = false
	if b.reply.Content == "" && len(b.reply.ToolCalls) == 0 {
		b.results = nil
		return
	}
	b.flushUser()
	if !b.tally {
		b.out = append(b.out, b.reply)
	}
	for _, c := range b.reply.ToolCalls {
		content, ok := b.results[c.ID]
		if !ok {
			content = interruptedAnswer.Content
			b.synthesized++
		}
		if !b.tally {
			b.out = append(b.out, chat.Message{Role: chat.RoleTool, Content: content, ToolCallID: c.ID})
		}
	}
	b.results = nil
	b.reply = chat.Message{}
}

// interruptedAnswer is the tool message that stands in for a missing result.
var interruptedAnswer = chat.Message{Role: chat.RoleTool, Content: "Error: " + interruptedText}

func messageContent(r *storage.Record) string {
	if r.Message == nil {
		return ""
	}
	return r.Message.Content
}

// toolCall turns a tool_use record into a call. Only a JSON object goes
// back as arguments: vLLM and SGLang parse the arguments of every call in
// the history and reject the whole request (400) when one does not parse,
// so replaying a malformed call verbatim would break every later request
// of the session on those servers. A call whose recorded input is anything
// else is sent with "{}"; its tool result already told the model that the
// arguments were malformed, quoting them.
func toolCall(t *storage.ToolUse) chat.ToolCall {
	return chat.ToolCall{ID: t.ID, Name: t.Name, Arguments: toolArguments(t.Input)}
}

func toolArguments(in json.RawMessage) string {
	obj := bytes.TrimSpace(in)
	if len(obj) == 0 || obj[0] != '{' || !json.Valid(obj) {
		return "{}"
	}
	return string(in)
}

// recordedArguments is the text the model sent for a call: the input
// object, or the original text of arguments that were not valid JSON
// (stored as a JSON string). It is for showing the call to a reader (the
// summariser), never for replaying it.
func recordedArguments(in json.RawMessage) string {
	if len(in) > 0 && in[0] == '"' {
		var s string
		if json.Unmarshal(in, &s) == nil {
			return s
		}
	}
	if len(in) == 0 {
		return "{}"
	}
	return string(in)
}

// toolInput is the inverse of recordedArguments: what a tool_use record
// stores for the arguments the model sent.
func toolInput(args string) json.RawMessage {
	if strings.TrimSpace(args) == "" {
		return json.RawMessage("{}")
	}
	// Compact valid JSON now so the record in memory and the line on disk
	// (which encoding/json compacts) rebuild the same request.
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(args)) == nil {
		return json.RawMessage(buf.Bytes())
	}
	q, _ := json.Marshal(args)
	return json.RawMessage(q)
}

func toolResultContent(t *storage.ToolResult) string {
	if t.Error == "" {
		return t.Output
	}
	if t.Output == "" {
		return "Error: " + t.Error
	}
	return t.Output + "\n\nError: " + t.Error
}
