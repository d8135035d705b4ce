package storage

import (
	"encoding/json"
	"time"
)

// Record types of CONTRACT.md section 4.
const (
	TypeUser       = "user"
	TypeAssistant  = "assistant"
	TypeToolUse    = "tool_use"
	TypeToolResult = "tool_result"
	TypeSystem     = "system"

	// TypeTitle is clawdcode's extension (CONTRACT.md section 4 lets
	// readers ignore types they do not know): a title the user gave the
	// session (/new <title>), in the Title field. It sends nothing to the
	// model. It lives in the file so that an index rebuilt from the files
	// keeps the title; the last one in the file wins.
	TypeTitle = "title"

	// SubtypeCompactBoundary marks a compaction on a TypeSystem record.
	SubtypeCompactBoundary = "compact_boundary"

	// SubtypeContextWindow is clawdcode's extension on a TypeSystem record
	// (CONTRACT.md section 4 lets readers ignore what they do not know): the
	// effective context window, in ContextWindow, that the overflow guard
	// learnt when the server rejected a request as too long (the server's
	// stated maximum, or an estimate below the rejected request). It sends
	// nothing to the model and is no message of the transcript. It lives in
	// the file so that a resumed session does not overflow again: a resume
	// takes the smallest window of these records in the live context and of
	// the boundary's CompactMetadata.EffectiveWindow (see contextmgr).
	SubtypeContextWindow = "context_window"

	// SubtypeContextCut is clawdcode's extension on a TypeSystem record:
	// records of the live context were cut down in memory outside a
	// compaction (by the overflow guard, or to fit a context with nothing
	// to compact), listed in CompactMetadata.Truncated as a boundary lists
	// them (uuid → byte limit). The whole records stay in the file. A
	// resume does not cut them again, but learns from it that the server's
	// prompt_tokens recorded after it measured a smaller request than the
	// one it sends, so that count is only a floor (see contextmgr).
	SubtypeContextCut = "context_cut"

	TriggerAuto   = "auto"
	TriggerManual = "manual"
)

// Record is one line of a session file. Field order is the order written.
// Readers ignore fields they do not know, so fields may be added (never
// renamed or removed): see CONTRACT.md section 4.
type Record struct {
	ParentUUID *string   `json:"parentUuid"`
	UUID       string    `json:"uuid"`
	SessionID  string    `json:"sessionId"`
	Timestamp  time.Time `json:"timestamp"`
	Type       string    `json:"type"`
	Subtype    string    `json:"subtype,omitempty"`
	CWD        string    `json:"cwd"`
	GitBranch  string    `json:"gitBranch,omitempty"`
	Version    string    `json:"version"`

	Message          *Message         `json:"message,omitempty"`
	Tool             *ToolUse         `json:"tool,omitempty"`
	ToolResult       *ToolResult      `json:"toolResult,omitempty"`
	IsCompactSummary bool             `json:"isCompactSummary,omitempty"`
	CompactMetadata  *CompactMetadata `json:"compactMetadata,omitempty"`

	// Title is the title of a TypeTitle record.
	Title string `json:"title,omitempty"`

	// ContextWindow is the window in tokens of a SubtypeContextWindow record.
	ContextWindow int `json:"contextWindow,omitempty"`

	// Tokens is clawdcode's extension: the token count of this record's
	// contribution to a request, when it was known at write time (0 = unknown).
	Tokens int `json:"tokens,omitempty"`
}

// Message is the message of user, assistant, system and summary records.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	Model   string `json:"model,omitempty"`
	Usage   *Usage `json:"usage,omitempty"`
}

// Usage is what the server reported for one model call.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// ToolUse is one tool call of an assistant reply.
type ToolUse struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// ToolResult answers the ToolUse with the same ID.
type ToolResult struct {
	ID     string `json:"id"`
	Output string `json:"output"`
	Error  string `json:"error,omitempty"`
}

// CompactMetadata is carried by both records of a compaction.
//
// RetainedOffset/RetainedUUID are clawdcode's extension on the boundary: the
// byte offset in the session file of the first retained record (the oldest
// message kept verbatim) and its uuid. A loader seeks there instead of
// decoding the history before the boundary. RetainedOffset equal to the
// boundary's own offset (and RetainedUUID empty) means nothing was retained.
type CompactMetadata struct {
	Trigger        string   `json:"trigger"`
	PreTokens      int      `json:"preTokens"`
	PostTokens     int      `json:"postTokens,omitempty"`
	FilesIncluded  []string `json:"filesIncluded,omitempty"`
	Fallback       bool     `json:"fallback,omitempty"`
	Error          string   `json:"error,omitempty"`
	RetainedOffset int64    `json:"retainedOffset,omitempty"`
	RetainedUUID   string   `json:"retainedUuid,omitempty"`
	// SessionUsage is the session's cumulative model usage when the
	// compaction happened, so /cost needs nothing from before the boundary.
	SessionUsage *Usage `json:"sessionUsage,omitempty"`
	// Truncated is clawdcode's extension on the boundary: the retained
	// records that the context in force sends cut down to fit the window
	// (the file keeps them whole), by uuid, with the byte limit each was
	// cut to. A resume cuts them again the same way (see contextmgr).
	Truncated map[string]int `json:"truncated,omitempty"`
	// Failures and SkipsLeft are clawdcode's extension on the summary
	// record: how many summaries had failed in a row when it was written,
	// and how many further auto-compactions skip the summariser (back-off),
	// so a resumed session keeps backing off (see contextmgr). Both are 0
	// after a summary that succeeded.
	Failures  int `json:"failures,omitempty"`
	SkipsLeft int `json:"skipsLeft,omitempty"`
	// EffectiveWindow is clawdcode's extension on the boundary: the
	// smallest context window in tokens that a server rejection had taught
	// the session when the compaction happened (0 = none). The
	// SubtypeContextWindow records before the boundary are not read on
	// resume; this carries what they said across it.
	EffectiveWindow int `json:"effectiveWindow,omitempty"`
}

// IsBoundary reports whether r is a compact_boundary record.
func (r *Record) IsBoundary() bool {
	return r.Type == TypeSystem && r.Subtype == SubtypeCompactBoundary
}

// IsSummary reports whether r is a compaction summary record.
func (r *Record) IsSummary() bool {
	return r.Type == TypeUser && r.IsCompactSummary
}
