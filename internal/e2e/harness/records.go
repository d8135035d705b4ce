package harness

import "encoding/json"

// ResultObject is the part of the result object (CONTRACT.md section 5)
// the tests read. Compactions is a pointer so that a missing field can be
// told from zero.
type ResultObject struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	IsError   bool   `json:"is_error"`
	Result    string `json:"result"`
	SessionID string `json:"session_id"`
	NumTurns  int    `json:"num_turns"`
	Context   struct {
		Tokens int `json:"tokens"`
		Window int `json:"window"`
	} `json:"context"`
	Compactions *int `json:"compactions"`
}

// Record is the part of a session record (CONTRACT.md section 4) the tests
// read. compactMetadata is not in it: a test package that reads it embeds
// Record in a type of its own that adds the field, in the shape it needs.
type Record struct {
	UUID             string         `json:"uuid"`
	ParentUUID       *string        `json:"parentUuid"`
	SessionID        string         `json:"sessionId"`
	Timestamp        string         `json:"timestamp"`
	Type             string         `json:"type"`
	Subtype          string         `json:"subtype"`
	Cwd              string         `json:"cwd"`
	IsCompactSummary bool           `json:"isCompactSummary"`
	Message          *RecordMessage `json:"message"`
	Tool             *RecordTool    `json:"tool"`
	ToolResult       *RecordResult  `json:"toolResult"`
}

// RecordMessage is the message of a user or assistant record.
type RecordMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// RecordTool is the call of a tool_use record.
type RecordTool struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// RecordResult is the outcome of a tool_result record.
type RecordResult struct {
	ID     string `json:"id"`
	Output string `json:"output"`
	Error  string `json:"error"`
}
