package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/clawdcode/clawdcode/internal/chat"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

// toolResultPreview bounds how much of a tool result `sessions show`
// prints: a transcript is for reading, the export is for keeping.
const toolResultPreview = 100

// textTranscript renders records as the readable text of `sessions show`.
type textTranscript struct {
	w *bufio.Writer
}

func (t *textTranscript) record(r *storage.Record) {
	switch {
	case r.IsBoundary():
		fmt.Fprintf(t.w, "── compacted (%s) ──\n\n", compactLabel(r.CompactMetadata, false))
	case r.IsSummary():
		t.summary(r)
	case r.Type == storage.TypeUser && r.Message != nil:
		text, command := chat.CommandText(r.Message.Content)
		if command && text == "" {
			return // the caveat Claude Code gives the model about a command
		}
		for line := range strings.SplitSeq(strings.TrimRight(text, "\n"), "\n") {
			fmt.Fprintf(t.w, "> %s\n", line)
		}
		t.w.WriteString("\n")
	case r.Type == storage.TypeAssistant && r.Message != nil:
		if text := strings.TrimSpace(r.Message.Content); text != "" {
			fmt.Fprintf(t.w, "%s\n\n", text)
		}
	case r.Type == storage.TypeToolUse && r.Tool != nil:
		fmt.Fprintf(t.w, "→ %s\n", describeCall(r.Tool.Name, r.Tool.Input))
	case r.Type == storage.TypeToolResult && r.ToolResult != nil:
		if r.ToolResult.Error != "" {
			fmt.Fprintf(t.w, "  ⎿ error: %s\n\n", termtext.Flatten(r.ToolResult.Error, toolResultPreview))
			return
		}
		fmt.Fprintf(t.w, "  ⎿ %s\n\n", previewOutput(r.ToolResult.Output))
	}
}

// summary prints the compaction summary that stands for the history before
// its boundary.
func (t *textTranscript) summary(r *storage.Record) {
	fmt.Fprintf(t.w, "── summary of earlier conversation (%s) ──\n", compactLabel(r.CompactMetadata, true))
	if r.Message != nil {
		fmt.Fprintf(t.w, "%s\n", strings.TrimSpace(r.Message.Content))
	}
	if m := r.CompactMetadata; m != nil && len(m.FilesIncluded) > 0 {
		fmt.Fprintf(t.w, "files included: %s\n", strings.Join(m.FilesIncluded, ", "))
	}
	t.w.WriteString("──\n\n")
}

// compactLabel describes a compaction: "auto, 170251 tokens", with the
// result on summaries ("auto, 170251 → 9000 tokens, fallback").
func compactLabel(m *storage.CompactMetadata, withPost bool) string {
	if m == nil {
		return "unknown"
	}
	trigger := m.Trigger
	if trigger == "" {
		trigger = "unknown"
	}
	label := fmt.Sprintf("%s, %d tokens", trigger, m.PreTokens)
	if withPost && m.PostTokens > 0 {
		label = fmt.Sprintf("%s, %d → %d tokens", trigger, m.PreTokens, m.PostTokens)
	}
	if m.Fallback {
		label += ", fallback"
	}
	return label
}

// previewOutput is the first line of a tool output and how much follows.
func previewOutput(out string) string {
	out = strings.TrimRight(out, "\n")
	if out == "" {
		return "(no output)"
	}
	first, rest, more := strings.Cut(out, "\n")
	p := termtext.Flatten(first, toolResultPreview)
	if more {
		p += fmt.Sprintf(" … (+%d %s)", strings.Count(rest, "\n")+1, plural(strings.Count(rest, "\n")+1, "line", "lines"))
	}
	return p
}

// describeCall renders a tool call as a person reads it: Read(main.go),
// Bash(go test ./...), Grep(TODO in internal/).
func describeCall(name string, input json.RawMessage) string {
	var args map[string]any
	if json.Unmarshal(input, &args) != nil {
		return name + "(…)"
	}
	str := func(k string) string {
		s, _ := args[k].(string)
		return s
	}
	var arg string
	switch {
	case str("file_path") != "":
		arg = str("file_path")
	case str("command") != "":
		arg = str("command")
	case str("pattern") != "":
		arg = str("pattern")
		if p := str("path"); p != "" {
			arg += " in " + p
		}
	}
	return fmt.Sprintf("%s(%s)", name, termtext.Flatten(arg, 80))
}

// markdownTranscript renders records as the Markdown of `sessions export`.
// Nothing is abbreviated: an export is a record to keep.
type markdownTranscript struct {
	w *bufio.Writer
}

func (t *markdownTranscript) header(id, title, project string) {
	if title == "" {
		title = "Session " + id
	}
	fmt.Fprintf(t.w, "# %s\n\n- Session: `%s`\n- Project: `%s`\n\n", termtext.Flatten(title, 200), id, project)
}

func (t *markdownTranscript) record(r *storage.Record) {
	switch {
	case r.IsBoundary():
		fmt.Fprintf(t.w, "---\n\n*── compacted (%s) ──*\n\n", compactLabel(r.CompactMetadata, false))
	case r.IsSummary():
		fmt.Fprintf(t.w, "## Summary (%s)\n\n", compactLabel(r.CompactMetadata, true))
		if r.Message != nil {
			fmt.Fprintf(t.w, "%s\n\n", strings.TrimSpace(r.Message.Content))
		}
	case r.Type == storage.TypeUser && r.Message != nil:
		if text, command := chat.CommandText(r.Message.Content); !command || text != "" {
			fmt.Fprintf(t.w, "## User\n\n%s\n\n", strings.TrimSpace(text))
		}
	case r.Type == storage.TypeAssistant && r.Message != nil:
		fmt.Fprintf(t.w, "## Assistant\n\n")
		if text := strings.TrimSpace(r.Message.Content); text != "" {
			fmt.Fprintf(t.w, "%s\n\n", text)
		}
	case r.Type == storage.TypeToolUse && r.Tool != nil:
		fmt.Fprintf(t.w, "**→ %s**\n\n", describeCall(r.Tool.Name, r.Tool.Input))
		fenced(t.w, "json", string(r.Tool.Input))
	case r.Type == storage.TypeToolResult && r.ToolResult != nil:
		if r.ToolResult.Error != "" {
			fmt.Fprintf(t.w, "Error: %s\n\n", strings.TrimSpace(r.ToolResult.Error))
		}
		if r.ToolResult.Output != "" {
			fenced(t.w, "", r.ToolResult.Output)
		}
	}
}

// fenced writes body as a code block whose fence is longer than any run of
// backticks inside it, so tool output cannot close it early.
func fenced(w *bufio.Writer, lang, body string) {
	longest, run := 0, 0
	for _, c := range body {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	fmt.Fprintf(w, "%s%s\n%s\n%s\n\n", fence, lang, strings.TrimRight(body, "\n"), fence)
}
