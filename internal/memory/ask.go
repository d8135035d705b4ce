package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// maxTranscript bounds the part of a session /memory suggest shows the
// model: its end, where the session's conclusions are.
const maxTranscript = 24 << 10

// AskPrompt is the instruction /memory suggest sends with a session's
// transcript: one fact, on one line, or NONE.
const AskPrompt = `Below is a transcript of a coding session in a software project. Suggest at most ONE short fact worth remembering for future sessions of this project: a command that builds or tests it, a convention the user insisted on, where something lives. Answer with the fact alone, on one line, under 200 characters, or with NONE if nothing is worth remembering.`

// Transcript is the session file at path as plain lines for AskPrompt —
// the user's messages, the replies, the tool calls and whether they
// failed — each cut short, the whole bounded to its last maxTranscript
// bytes.
func Transcript(ctx context.Context, path string) (string, error) {
	var lines []string
	err := storage.ReadAll(ctx, path, func(_ int64, r *storage.Record) error {
		switch {
		case r.Type == storage.TypeUser && r.Message != nil && !r.IsCompactSummary:
			lines = append(lines, "User: "+firstLine(r.Message.Content, 300))
		case r.Type == storage.TypeAssistant && r.Message != nil && r.Message.Content != "":
			lines = append(lines, "Assistant: "+firstLine(r.Message.Content, 300))
		case r.Type == storage.TypeToolUse && r.Tool != nil:
			lines = append(lines, fmt.Sprintf("Tool %s: %s", r.Tool.Name, firstLine(string(r.Tool.Input), 200)))
		case r.Type == storage.TypeToolResult && r.ToolResult != nil && r.ToolResult.Error != "":
			lines = append(lines, "  failed: "+firstLine(r.ToolResult.Error, 100))
		}
		return nil
	}, nil)
	if err != nil {
		return "", fmt.Errorf("read the session: %w", err)
	}
	text := strings.Join(lines, "\n")
	if len(text) > maxTranscript {
		text = text[len(text)-maxTranscript:]
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[i+1:]
		}
	}
	return text, nil
}

// ModelAnswer turns the model's answer to AskPrompt into a suggestion of
// session ("" and false for NONE or nothing usable).
func ModelAnswer(answer, session string) (Suggestion, bool) {
	text := firstLine(strings.Trim(strings.TrimSpace(answer), "\"'"), 300)
	if text == "" || strings.EqualFold(strings.Trim(text, "."), "none") {
		return Suggestion{}, false
	}
	return Suggestion{Text: text, Kind: KindModel, Source: Source{Kind: SourceModel, Session: session}}, true
}
