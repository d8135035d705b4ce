package storage

import (
	"encoding/json"
	"time"
)

// Record types of the session format (docs/session-format.md, which lists
// every type, subtype and field; docs/session.schema.json must list them
// too).
const (
	TypeUser       = "user"
	TypeAssistant  = "assistant"
	TypeToolUse    = "tool_use"
	TypeToolResult = "tool_result"
	TypeSystem     = "system"

	// TypeTitle is clawdcode's extension (readers ignore types they do
	// not know): a title the user gave the
	// session (/new <title>), in the Title field. It sends nothing to the
	// model. It lives in the file so that an index rebuilt from the files
	// keeps the title; the last one in the file wins.
	TypeTitle = "title"

	// Values of Record.Incomplete.
	IncompleteInterrupted = "interrupted"
	IncompleteFailed      = "failed"

	// SubtypeCompactBoundary marks a compaction on a TypeSystem record.
	SubtypeCompactBoundary = "compact_boundary"

	// SubtypeContextWindow is clawdcode's extension on a TypeSystem record
	// (readers ignore what they do not know): the
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

	// SubtypeContextClear is clawdcode's extension on a TypeSystem record
	// (format 1.10): the context ladder replaced the bodies of tool
	// results in force by one-line stubs, listed in
	// CompactMetadata.Cleared (uuid → the ladder's step: ClearStepOld or
	// ClearStepSuperseded), with the request's size before and after in
	// PreTokens and PostTokens. The whole results stay in the file (a
	// stub names its record's uuid for Recall). A resume clears them
	// again the same way, so it sends the same request bytes.
	SubtypeContextClear = "context_clear"

	// SubtypeBriefForms is clawdcode's extension on a TypeSystem record
	// (format 1.14): the session sends the brief forms of the system
	// prompt and the tool definitions, chosen when it started because its
	// window was small (see contextmgr's brief.go). It is written right
	// after the session's first record, before any request, and every boundary
	// after it carries CompactMetadata.BriefForms, so that a resume sends
	// the same forms whatever the window then. It sends nothing itself.
	SubtypeBriefForms = "brief_forms"
	// SubtypeContextGiveUp is clawdcode's extension on a TypeSystem record
	// (format 1.15): the context ladder's last step. Even the summary could
	// not free enough (the request stayed over the trigger, or left too
	// little room to work), the user was told, and no summary is tried
	// again until enough new material has come. PreTokens is the request
	// the ladder gave up on, as a resume counts it (before any cut in
	// memory), PostTokens the request sent. A resume waits as the process
	// that wrote it would have, so a -c run per turn does not summarise
	// every time.
	SubtypeContextGiveUp = "context_give_up"

	// The steps of the context ladder that clear tool results (values of
	// CompactMetadata.Cleared and LadderStep.Step), and the summary step.
	ClearStepOld        = "clear"
	ClearStepSuperseded = "superseded"
	LadderStepSummary   = "summary"
	// ClearStepCollapse (1.14) takes a whole old round whose results are
	// cleared out of the request: its reply, tool_use and tool_result
	// records send nothing. ClearStepIndex marks the cleared tool_result
	// that lists them, one line each with its Recall ref, since the
	// previous one (see contextmgr's collapse.go).
	ClearStepCollapse = "collapse"
	ClearStepIndex    = "index"

	// SubtypePin and SubtypeUnpin (CONTRACT.md section 4, stage 2) pin a
	// text the user wants sent verbatim in every request (Pin.ID, Pin.Text)
	// and remove it again (Pin.ID). The pins in force when a compaction
	// happens are carried on its boundary (CompactMetadata.Pins), so a
	// resume, which reads nothing before the boundary, still has them.
	SubtypePin   = "pin"
	SubtypeUnpin = "unpin"

	// SubtypeFork opens a session forked from another (Fork: the parent
	// and the last record of it taken); the parent's live context follows.
	SubtypeFork = "fork"

	// SubtypeHandoff, appended to a session, names the session its work
	// was handed off to (Handoff.SessionID).
	SubtypeHandoff = "handoff"

	// SubtypeSubagent, appended to a session when its Task call starts a
	// subagent, names the subagent's session and the call
	// (Subagent.SessionID, Subagent.ToolUseID). SubtypeSubagentStart is
	// the first record of that session and names the parent session and
	// the call; the session's listing then carries the parent.
	SubtypeSubagent      = "subagent"
	SubtypeSubagentStart = "subagent_start"

	// SubtypeRewind is clawdcode's extension: the conversation went back
	// to just before the user record Rewind.UUID. A load drops the records
	// from that one up to this record, or, when a compaction replaced that
	// record since, starts again from the context as it was just before
	// it (see Live).
	SubtypeRewind = "rewind"

	// SubtypeImport opens a session imported from another tool
	// (CONTRACT.md section 10): Import names the tool and the source file.
	SubtypeImport = "import"

	// SubtypeRepair is appended by `clawdcode sessions check --repair`:
	// Repair names damage found in the lines before it, which readers
	// then pass over without a warning (and, for an exact duplicate,
	// without the record), and the records it re-links. The damaged lines
	// themselves stay in the file: it is append-only.
	SubtypeRepair = "session_repair"

	// SubtypeReorientation is clawdcode's extension: the re-orientation
	// packet a resumed session gives the model with its next user message
	// (Message, role user: the task, the calls since, the files in flight,
	// the open items, the next step), appended right after that message
	// and sent as part of it (see contextmgr).
	SubtypeReorientation = "reorientation"

	// SubtypeModelUsage is what a model call used when the session's
	// replies do not carry it (1.16): an imported Codex session, whose
	// rollout reports each call's tokens in an event of its own after
	// the reply. ModelUsage holds it. Nothing is sent to the model for
	// it; `clawdcode usage` counts it as a reply's usage.
	SubtypeModelUsage = "model_usage"

	TriggerAuto   = "auto"
	TriggerManual = "manual"
)

// Record is one line of a session file. Field order is the order written.
// Readers ignore fields they do not know, so fields may be added (never
// renamed or removed): see docs/session-format.md, Versioning.
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
	// Listing is clawdcode's extension, filled by Append on every record:
	// what a listing shows of the session as of this record. It comes
	// right after the common fields, so that a listing without index.json
	// reads it from the first bytes of a file's last line.
	Listing *Listing `json:"listing,omitempty"`
	// ImportPos is clawdcode import's progress mark on every record it
	// writes, right after Listing so that it is read from a line's first
	// bytes (see ImportPos).
	ImportPos *ImportPos `json:"importPos,omitempty"`

	Message          *Message         `json:"message,omitempty"`
	Tool             *ToolUse         `json:"tool,omitempty"`
	ToolResult       *ToolResult      `json:"toolResult,omitempty"`
	IsCompactSummary bool             `json:"isCompactSummary,omitempty"`
	CompactMetadata  *CompactMetadata `json:"compactMetadata,omitempty"`

	// Title is the title of a TypeTitle record.
	Title string `json:"title,omitempty"`

	// Incomplete marks an assistant record whose answer did not complete:
	// IncompleteInterrupted (the user stopped it) or IncompleteFailed (the
	// request failed). Its content is what had streamed, and a marker.
	Incomplete string `json:"incomplete,omitempty"`

	// ContextWindow is the window in tokens of a SubtypeContextWindow
	// record; a SubtypeContextWindow record without one clears the window
	// learnt before it (/context --reset-window).
	ContextWindow int `json:"contextWindow,omitempty"`

	// Pin is the pin of a SubtypePin record (ID and Text) or of a
	// SubtypeUnpin record (ID only).
	Pin *Pin `json:"pin,omitempty"`
	// Fork is the origin of a SubtypeFork record.
	Fork *ForkInfo `json:"fork,omitempty"`
	// Subagent links a SubtypeSubagent or SubtypeSubagentStart record to
	// the session on the other side.
	Subagent *SubagentInfo `json:"subagent,omitempty"`
	// Handoff is the destination of a SubtypeHandoff record.
	Handoff *HandoffInfo `json:"handoff,omitempty"`
	// Rewind is the target of a SubtypeRewind record.
	Rewind *RewindInfo `json:"rewind,omitempty"`
	// Import is the origin of a SubtypeImport record.
	Import *ImportInfo `json:"import,omitempty"`
	// Repair is what a SubtypeRepair record repaired.
	Repair *RepairInfo `json:"repair,omitempty"`
	// ModelUsage is the model call a SubtypeModelUsage record counts.
	ModelUsage *ModelUsage `json:"modelUsage,omitempty"`

	// Tokens is clawdcode's extension: the token count of this record's
	// contribution to a request, when it was known at write time (0 = unknown).
	Tokens int `json:"tokens,omitempty"`

	// Large, when set, gives the large texts the record's strings refer
	// to (see LargeText); Append writes them in place. Never read back.
	Large LargeTexts `json:"-"`
}

// Listing is the session as `sessions list` shows it, as of the record
// that carries it: the user and assistant messages so far (summaries not
// counted), the last known context size in tokens, and the title of the
// last title record, if any (otherwise the title is the first user
// message's, read from the head of the file).
type Listing struct {
	Messages int    `json:"messages"`
	Tokens   int    `json:"tokens,omitempty"`
	Title    string `json:"title,omitempty"`
	// Parent is the session whose Task call this subagent session runs
	// for ("" = a session of its own).
	Parent string `json:"parent,omitempty"`
}

// Message is the message of user, assistant, system and summary records.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	Model   string `json:"model,omitempty"`
	Usage   *Usage `json:"usage,omitempty"`
	// Images are the images a user message carries, each stored once
	// under CLAWDCODE_HOME/images and referred to here (see ImageRef).
	Images []ImageRef `json:"images,omitempty"`
}

// Usage is what the server reported for one model call.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	// CacheReadInputTokens is the part of InputTokens the server served
	// from its prompt cache, when it said (Claude Code's field name).
	CacheReadInputTokens int `json:"cache_read_input_tokens,omitempty"`
}

// Add adds v's counts to u.
func (u *Usage) Add(v Usage) {
	u.InputTokens += v.InputTokens
	u.OutputTokens += v.OutputTokens
	u.CacheReadInputTokens += v.CacheReadInputTokens
}

// ModelUsage is one model call's usage, with the model that made it.
type ModelUsage struct {
	Model string `json:"model,omitempty"`
	Usage Usage  `json:"usage"`
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
	// Usage is clawdcode's extension on the result of a Task call: what
	// the subagent's model calls used (its session holds each of them),
	// so that the parent's /cost counts it without opening that session.
	Usage *Usage `json:"usage,omitempty"`
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
	// SummaryUsage is clawdcode's extension on the boundary: what the
	// session's summary calls (every compaction's, this one's included)
	// had used when it was written, kept apart from SessionUsage.
	SummaryUsage *Usage `json:"summaryUsage,omitempty"`
	// SubagentUsage is clawdcode's extension on the boundary: what the
	// session's subagents (the Task results' usage) had used when it was
	// written, kept apart from SessionUsage.
	SubagentUsage *Usage `json:"subagentUsage,omitempty"`
	// Truncated is clawdcode's extension on the boundary: the retained
	// records that the context in force sends cut down to fit the window
	// (the file keeps them whole), by uuid, with the byte limit each was
	// cut to. A resume cuts them again the same way (see contextmgr).
	Truncated map[string]int `json:"truncated,omitempty"`
	// Cleared is clawdcode's extension (1.10) on a context_clear record
	// and on the boundary: the tool results sent as a one-line stub
	// instead of their body, by uuid, with the ladder step that cleared
	// each (ClearStepOld, ClearStepSuperseded). On the boundary it lists
	// the retained results still cleared, so a resume clears them again.
	Cleared map[string]string `json:"cleared,omitempty"`
	// Failures and SkipsLeft are clawdcode's extension on the summary
	// record: how many summaries had failed in a row when it was written,
	// and how many further auto-compactions skip the summariser (back-off),
	// so a resumed session keeps backing off (see contextmgr). Both are 0
	// after a summary that succeeded.
	Failures  int `json:"failures,omitempty"`
	SkipsLeft int `json:"skipsLeft,omitempty"`
	// BriefForms is clawdcode's extension (1.14) on the boundary: the
	// session sends the brief system prompt and tools (SubtypeBriefForms).
	BriefForms bool `json:"briefForms,omitempty"`
	// EffectiveWindow is clawdcode's extension on the boundary: the
	// smallest context window in tokens that a server rejection had taught
	// the session when the compaction happened (0 = none). The
	// SubtypeContextWindow records before the boundary are not read on
	// resume; this carries what they said across it.
	EffectiveWindow int `json:"effectiveWindow,omitempty"`
	// EffectiveWindowAt is when EffectiveWindow was learnt (the
	// timestamp of its SubtypeContextWindow record): a learnt window
	// expires (see contextmgr), and a boundary carrying it must not renew it.
	EffectiveWindowAt *time.Time `json:"effectiveWindowAt,omitempty"`
	// Receipt is on the boundary: what the compaction took out.
	Receipt *Receipt `json:"receipt,omitempty"`
	// Pins is clawdcode's extension on the boundary: the pins in force
	// when the compaction happened, so a resume has them without reading
	// the pin records before it.
	Pins []Pin `json:"pins,omitempty"`
	// Todos is clawdcode's extension on the boundary: the model's task
	// list in force when the compaction happened (read from the TodoWrite
	// calls, never from the summary), each completed item with the refs of
	// the calls made while it was in progress, so a resume has it without
	// reading the records before the boundary.
	Todos []Todo `json:"todos,omitempty"`
	// Ledger is clawdcode's extension on the boundary: the evidence
	// ledger, the hard facts of every range compacted so far, read from
	// the tool records (never from the summary) and merged with the
	// previous boundary's.
	Ledger *Ledger `json:"ledger,omitempty"`
	// UserRules is clawdcode's extension on the boundary: the user's
	// explicit constraints ("never …", "always …", "don't …"), word for
	// word from their messages, gathered over every compacted range, which
	// each compaction restates after the summary.
	UserRules []string `json:"userRules,omitempty"`
}

// Ledger is the evidence of the work that compactions took out of the
// context, read from the tool_use and tool_result records: each entry
// names the tool_use record it comes from (Ref, for Recall). A file or a
// command met again replaces its entry; the lists are bounded, oldest out.
// This is its record form; package ledger reads it from the records,
// merges it and writes its text.
type Ledger struct {
	Files    []LedgerFile    `json:"files,omitempty"`
	Commands []LedgerCommand `json:"commands,omitempty"`
	// Tests are the lines of commands' output that report test results
	// ("ok pkg 0.3s", "--- FAIL: TestX", "3 passed, 1 failed").
	Tests []LedgerLine `json:"tests,omitempty"`
	// Numbers are the lines of tools' output that name a number
	// ("limit = 4096", "latency: 35ms").
	Numbers []LedgerLine `json:"numbers,omitempty"`
	// Errors are the calls that failed other than by a command's exit
	// status (an Edit whose old_string was not found, a timeout).
	Errors []LedgerLine `json:"errors,omitempty"`
}

// LedgerFile is a file a tool read, wrote or edited: its last operation
// and the lines it read, wrote or changed ("25", "-3 +5").
type LedgerFile struct {
	Path  string `json:"path"`
	Op    string `json:"op"`
	Lines string `json:"lines,omitempty"`
	Ref   string `json:"ref"`
}

// LedgerCommand is a shell command, its exit status (-1 = it did not
// exit: killed, timed out) and, when it failed, the last lines of its
// output.
type LedgerCommand struct {
	Command string `json:"command"`
	Exit    int    `json:"exit"`
	Error   string `json:"error,omitempty"`
	Ref     string `json:"ref"`
}

// LedgerLine is one line of evidence and the call it came from (Source:
// "Bash", "Read src/a.go").
type LedgerLine struct {
	Text   string `json:"text"`
	Source string `json:"source,omitempty"`
	Ref    string `json:"ref"`
}

// Todo is one item of the model's task list as the session keeps it:
// its content and status as the last TodoWrite call gave them, and Refs,
// the uuids of the tool_use records made while it was in progress
// (bounded; Recall finds each by ref).
type Todo struct {
	Content string   `json:"content"`
	Status  string   `json:"status"`
	Refs    []string `json:"refs,omitempty"`
}

// Pin is one pinned text. IDs are numbers given in order within a session
// (and carried by forks and handoffs); the list shown by /pins numbers the
// pins in force from 1.
type Pin struct {
	ID   int    `json:"id"`
	Text string `json:"text,omitempty"`
}

// ForkInfo says where a forked session came from.
type ForkInfo struct {
	SessionID string `json:"sessionId"`
	UUID      string `json:"uuid"` // the last record of the parent taken
}

// SubagentInfo names the session on the other side of a subagent link
// and the Task call (its tool_use id in the parent) that made it.
type SubagentInfo struct {
	SessionID string `json:"sessionId"`
	ToolUseID string `json:"toolUseId"`
}

// HandoffInfo names the session a handoff continued in.
type HandoffInfo struct {
	SessionID string `json:"sessionId"`
}

// RepairInfo is what `sessions check --repair` did to the lines before
// its record, without changing them.
type RepairInfo struct {
	// Skip lists lines that readers pass over: damaged bytes (no record),
	// the second copy of an exact duplicate, and a boundary without its
	// summary (ignored by a resume in any case). Only the warning goes for
	// the latter two kinds; a duplicate's record goes too.
	Skip []RepairSkip `json:"skip,omitempty"`
	// Relink gives records whose parentUuid names no earlier record the
	// parent they have in the file: the record before them.
	Relink []RepairRelink `json:"relink,omitempty"`
}

// RepairSkip is one line passed over: its byte offset and length (without
// the '\n'), and why (RepairDamaged, RepairDuplicate, RepairUnfinished).
type RepairSkip struct {
	Offset int64  `json:"offset"`
	Length int    `json:"length"`
	Reason string `json:"reason"`
	UUID   string `json:"uuid,omitempty"`
}

// RepairRelink gives the record UUID the parent ParentUUID ("" for none).
type RepairRelink struct {
	UUID       string `json:"uuid"`
	ParentUUID string `json:"parentUuid"`
}

// Reasons of a RepairSkip.
const (
	RepairDamaged    = "damaged"
	RepairDuplicate  = "duplicate"
	RepairUnfinished = "unfinished_boundary"
)

// ImportInfo is the origin of an imported session: the tool that wrote
// it ("claude-code" or "codex") and the source file's path.
type ImportInfo struct {
	Tool string `json:"tool"`
	Path string `json:"path"`
}

// RewindInfo names the user record a rewind went back to (just before it)
// and where that record's line starts in the file (1.10). The offset lets
// a load rebuild the context as it was before that record when a
// compaction since replaced it (see Live); a rewind without one reaches
// only the records of the live context.
type RewindInfo struct {
	UUID   string `json:"uuid"`
	Offset int64  `json:"offset,omitempty"`
}

// Receipt is what a compaction took out of the context (on the boundary,
// CONTRACT.md section 4, stage 2): how many messages and tokens, the file
// paths and shell commands they held, and which of those the summary does
// not mention.
type Receipt struct {
	Messages     int          `json:"messages"`
	Tokens       int          `json:"tokens"`
	Paths        []string     `json:"paths"`
	Commands     []string     `json:"commands"`
	NotInSummary NotInSummary `json:"notInSummary"`
	// First and Last are clawdcode's extension: the uuids of the first and
	// the last record the compaction took out (Recall refs).
	First string `json:"first,omitempty"`
	Last  string `json:"last,omitempty"`
	// SummaryUsage is what this compaction's summary calls used, when it
	// made any; SummaryCost what they cost in US dollars at the prices in
	// force then (absent when the model's price was not known).
	SummaryUsage *Usage   `json:"summaryUsage,omitempty"`
	SummaryCost  *float64 `json:"summaryCost,omitempty"`
	// CacheBroken is clawdcode's extension (1.13): the tokens the
	// compaction sends that the server's prompt cache cannot have — its
	// summary calls' input the server did not serve from its cache, and
	// the first request after it past the system prompt and tools (the
	// summary and the retained records) — and CacheBrokenCost what
	// sending them uncached costs above the cached price, in US dollars
	// (absent when the model's price is not known).
	CacheBroken     int      `json:"cacheBroken,omitempty"`
	CacheBrokenCost *float64 `json:"cacheBrokenCost,omitempty"`
	// Ladder is clawdcode's extension (1.11): the steps the context
	// ladder took since the previous boundary, in order — clearing old
	// tool results, dropping superseded reads, this summary — each with
	// the tokens it freed.
	Ladder []LadderStep `json:"ladder,omitempty"`
}

// LadderStep is one step of the context ladder: which (ClearStepOld,
// ClearStepSuperseded, LadderStepSummary), how many tool results it
// cleared (0 for the summary) and the tokens it freed.
type LadderStep struct {
	Step    string `json:"step"`
	Results int    `json:"results,omitempty"`
	Freed   int    `json:"freed"`
}

// NotInSummary lists the receipt's paths and commands the summary text
// does not mention.
type NotInSummary struct {
	Paths    []string `json:"paths"`
	Commands []string `json:"commands"`
}

// IsBoundary reports whether r is a compact_boundary record.
func (r *Record) IsBoundary() bool {
	return r.Type == TypeSystem && r.Subtype == SubtypeCompactBoundary
}

// IsSummary reports whether r is a compaction summary record.
func (r *Record) IsSummary() bool {
	return r.Type == TypeUser && r.IsCompactSummary
}
