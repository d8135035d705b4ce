package storage

import (
	"encoding/json"
	"testing"

	"github.com/clawdcode/clawdcode/internal/sessionschema"
)

// Every kind of record, written as Append, AppendBatch and SaveTitle fill
// and encode it, matches docs/session.schema.json: the schema describes
// the lines this package really writes (the common fields included).
func TestRecordsMatchSchema(t *testing.T) {
	t.Parallel()
	s := mustCreate(t, newTestProject(t))
	defer s.Close()
	mustAppend(t, s, userRecord("read a.go"))
	first := s.last
	mustAppend(t, s, assistantRecord("", 120, 8))
	mustAppend(t, s, &Record{Type: TypeToolUse, Tool: &ToolUse{ID: "call_1", Name: "Read", Input: json.RawMessage(`{"file_path":"a.go"}`)}, Tokens: 20})
	mustAppend(t, s, &Record{Type: TypeToolResult, ToolResult: &ToolResult{ID: "call_1", Output: "package a", Error: ""}})
	mustAppend(t, s, &Record{Type: TypeToolResult, ToolResult: &ToolResult{ID: "call_2", Error: "no such file"}})
	mustAppend(t, s, &Record{Type: TypeToolResult, ToolResult: &ToolResult{ID: "call_3", Output: "the answer", Usage: &Usage{InputTokens: 900, OutputTokens: 40}}})
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeContextWindow, ContextWindow: 8000})
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeContextCut, CompactMetadata: &CompactMetadata{Truncated: map[string]int{first: 4096}}})
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeContextClear, CompactMetadata: &CompactMetadata{Trigger: TriggerAuto, PreTokens: 7200, PostTokens: 3600,
		Cleared: map[string]string{first: ClearStepOld}}})
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeContextClear, CompactMetadata: &CompactMetadata{Trigger: TriggerAuto,
		Truncated: map[string]int{first: 2048}}})
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeContextGiveUp, CompactMetadata: &CompactMetadata{Trigger: TriggerAuto, PreTokens: 7090, PostTokens: 7000}})
	usage := Usage{InputTokens: 120, OutputTokens: 8}
	summaryCost := 0.0004
	boundary := &Record{
		Type: TypeSystem, Subtype: SubtypeCompactBoundary,
		Message: &Message{Role: "system", Content: "Conversation compacted"},
		CompactMetadata: &CompactMetadata{Trigger: TriggerAuto, PreTokens: 900, RetainedOffset: 1,
			RetainedUUID: first, SessionUsage: &usage, SummaryUsage: &usage, SubagentUsage: &usage, Truncated: map[string]int{first: 100}, EffectiveWindow: 8000,
			Cleared: map[string]string{first: ClearStepSuperseded},
			Receipt: &Receipt{Messages: 4, Tokens: 700, Paths: []string{"a.go"}, Commands: []string{"go test ./..."},
				NotInSummary: NotInSummary{Paths: []string{}, Commands: []string{"go test ./..."}}, First: first, Last: first,
				SummaryUsage: &usage, SummaryCost: &summaryCost,
				Ladder: []LadderStep{{Step: ClearStepOld, Results: 3, Freed: 2400}, {Step: LadderStepSummary, Freed: 1800}}},
			Pins:  []Pin{{ID: 1, Text: "keep the API stable"}},
			Todos: []Todo{{Content: "read a.go", Status: "completed", Refs: []string{first}}, {Content: "fix it", Status: "pending"}},
			Ledger: &Ledger{Files: []LedgerFile{{Path: "a.go", Op: "edit", Lines: "-1 +2", Ref: first}},
				Commands: []LedgerCommand{{Command: "go test ./...", Exit: 1, Error: "FAIL a", Ref: first}},
				Tests:    []LedgerLine{{Text: "--- FAIL: TestA", Source: "go test ./...", Ref: first}},
				Numbers:  []LedgerLine{{Text: "limit = 4096", Source: "Read a.go", Ref: first}},
				Errors:   []LedgerLine{{Text: "old_string not found", Source: "Edit a.go", Ref: first}}},
			UserRules: []string{"Never push to main."}},
	}
	summary := &Record{
		Type: TypeUser, IsCompactSummary: true, Tokens: 40,
		Message: &Message{Role: "user", Content: "the summary"},
		CompactMetadata: &CompactMetadata{Trigger: TriggerAuto, PreTokens: 900, PostTokens: 200,
			FilesIncluded: []string{"a.go"}, Fallback: true, Error: "server error", Failures: 1, SkipsLeft: 2},
	}
	if _, err := s.AppendBatch(boundary, summary); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveTitle("Refactor the parser"); err != nil {
		t.Fatal(err)
	}
	parent := "0b0a1a5e-4d3c-4e0f-9a1b-2c3d4e5f6a7b"
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypePin, Pin: &Pin{ID: 2, Text: "use tabs"}})
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeUnpin, Pin: &Pin{ID: 2}})
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeFork, Fork: &ForkInfo{SessionID: parent, UUID: first}})
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeHandoff, Handoff: &HandoffInfo{SessionID: parent}})
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeSubagent, Subagent: &SubagentInfo{SessionID: parent, ToolUseID: "call_1"}})
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeSubagentStart, Subagent: &SubagentInfo{SessionID: parent, ToolUseID: "call_1"}})
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeRewind, Rewind: &RewindInfo{UUID: first, Offset: 1}})
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeImport, Import: &ImportInfo{Tool: "claude-code", Path: "/home/u/.claude/projects/-home-u-p/0b9c.jsonl"}})
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeReorientation, Message: &Message{Role: "user", Content: "Re-orientation: the task, the calls since"}})
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeModelUsage, ModelUsage: &ModelUsage{Model: "gpt-5-codex", Usage: Usage{InputTokens: 900, OutputTokens: 12, CacheReadInputTokens: 600}}})
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeRepair, Repair: &RepairInfo{
		Skip:   []RepairSkip{{Offset: 10, Length: 5, Reason: RepairDuplicate, UUID: "u1"}, {Offset: 20, Length: 3, Reason: RepairDamaged}},
		Relink: []RepairRelink{{UUID: "u2", ParentUUID: "u1"}},
	}})
	sessionschema.CheckFile(t, s.Path(), 0)
	if n := len(readLines(t, s.Path())); n != 25 {
		t.Fatalf("%d lines written, want 25", n)
	}
}
