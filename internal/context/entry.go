package contextmgr

import (
	"encoding/json"
	"iter"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// entry is one record in force in the live context, with what the manager
// knows of its size.
type entry struct {
	rec    *storage.Record
	offset int64 // byte offset of its line in the session file; -1 unknown

	// trunc, when set, is what is sent instead of rec: a copy whose long
	// text was cut down in memory to truncLimit bytes (truncateText of the
	// full text, so the same limit always gives the same text). The file
	// keeps the full record.
	trunc      *storage.Record
	truncLimit int
	// clip, when positive, says that rec itself is not the file's record
	// but a copy cut down to clip bytes of text: the MemoryStore's byte
	// bound was reached (see liveContext.hold). The file keeps it whole.
	clip int
	// cleared, when set, is the ladder step (storage.ClearStepOld,
	// ClearStepSuperseded) that made a tool result send a one-line stub
	// (trunc) instead of its body; see ladder.go.
	cleared string

	ub    int // cheap upper bound of the tokens it adds (of sent())
	exact int // exact count of sent(), -1 until counted
	est   int // fast estimate of sent(), -1 until made
}

// records are the records of es, in order (for the ledger, which reads
// records, not entries).
func records(es []*entry) iter.Seq[*storage.Record] {
	return func(yield func(*storage.Record) bool) {
		for _, e := range es {
			if !yield(e.rec) {
				return
			}
		}
	}
}

// Live is what the MemoryStore weighs and hands back: the record held
// (cut down when clip says so) and its offset.
func (e *entry) Live() storage.LiveRecord { return storage.LiveRecord{Record: e.rec, Offset: e.offset} }

func (e *entry) sent() *storage.Record {
	if e.trunc != nil {
		return e.trunc
	}
	return e.rec
}

// best is the tightest size known without counting.
func (e *entry) best() int {
	if e.exact >= 0 {
		return e.exact
	}
	return e.ub
}

// relevant reports whether r contributes to a request (summary aside).
func relevant(r *storage.Record) bool {
	switch r.Type {
	case storage.TypeUser:
		return !r.IsCompactSummary
	case storage.TypeAssistant:
		return true
	case storage.TypeToolUse:
		return r.Tool != nil
	case storage.TypeToolResult:
		return r.ToolResult != nil
	case storage.TypeSystem:
		return r.Subtype == storage.SubtypeReorientation && r.Message != nil
	}
	return false
}

// recordMessage is the message a record contributes on its own; counting
// records one by one slightly over-counts merged turns and multi-call
// replies (3 tokens of overhead each), which errs on the safe side.
func recordMessage(r *storage.Record) chat.Message {
	switch r.Type {
	case storage.TypeAssistant:
		return chat.Message{Role: chat.RoleAssistant, Content: messageContent(r)}
	case storage.TypeToolUse:
		return chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{toolCall(r.Tool)}}
	case storage.TypeToolResult:
		return chat.Message{Role: chat.RoleTool, Content: toolResultContent(r.ToolResult), ToolCallID: r.ToolResult.ID}
	}
	return chat.Message{Role: chat.RoleUser, Content: messageContent(r)}
}

// part is a fixed piece of every request (system prompt, tool definitions).
type part struct {
	ub, exact int
}

func (p part) best() int {
	if p.exact >= 0 {
		return p.exact
	}
	return p.ub
}

// toolsUpperBound bounds Counter.Tools without an encoder: every token of
// a tool definition is at least one byte of its JSON, and the per-function
// and per-property overheads of the chat accounting are covered by a
// generous constant per tool.
func toolsUpperBound(defs []chat.ToolDef) int {
	if len(defs) == 0 {
		return 0
	}
	n := 16
	for _, d := range defs {
		b, _ := json.Marshal(d)
		n += len(b) + 32
	}
	return n
}
