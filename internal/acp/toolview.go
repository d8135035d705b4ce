package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/toolcall"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// maxShownBytes bounds the text of one tool call's content sent to the
// client (a result, a command's output, a diff's side): the model may get
// 100 kB of a file, the user's panel needs no more than this.
const maxShownBytes = 64 << 10

// callView is a tool call as the client is shown it: announced once
// (tool_call), then updated (tool_call_update).
type callView struct {
	id, name string
	kind     acpsdk.ToolKind
	title    string
	input    json.RawMessage
	// terminal is the id of the client's terminal the call runs in ("" =
	// none); output is what a local command wrote so far.
	terminal string
	output   strings.Builder
	sent     time.Time // when output was last sent
	status   acpsdk.ToolCallStatus
}

// toolKind is the kind of a call of the tool name, for the client's icon.
func toolKind(name string) acpsdk.ToolKind {
	switch n, _ := toolcall.Name(name); n {
	case toolcall.Read:
		return acpsdk.ToolKindRead
	case toolcall.Write, toolcall.Edit, toolcall.MultiEdit:
		return acpsdk.ToolKindEdit
	case toolcall.Bash, toolcall.BashOutput, toolcall.KillShell:
		return acpsdk.ToolKindExecute
	case toolcall.Glob, toolcall.Grep, toolcall.Recall:
		return acpsdk.ToolKindSearch
	case toolcall.WebFetch:
		return acpsdk.ToolKindFetch
	case toolcall.TodoWrite, toolcall.Task:
		return acpsdk.ToolKindThink
	}
	return acpsdk.ToolKindOther
}

// callInput are the fields of a call's input a title is made of.
type callInput struct {
	FilePath    string `json:"file_path"`
	Path        string `json:"path"`
	Pattern     string `json:"pattern"`
	Command     string `json:"command"`
	URL         string `json:"url"`
	Description string `json:"description"`
	Query       string `json:"query"`
	ShellID     string `json:"shell_id"`
	Offset      int    `json:"offset"`
	Content     string `json:"content"`
	OldString   string `json:"old_string"`
	NewString   string `json:"new_string"`
	ReplaceAll  bool   `json:"replace_all"`
}

// toolTitle is the one line the client shows for a call: what it does,
// paths relative to the project root.
func toolTitle(name string, input json.RawMessage, root string) string {
	var in callInput
	_ = json.Unmarshal(input, &in)
	rel := func(p string) string { return toolcall.Rel(root, p) }
	var title string
	switch n, _ := toolcall.Name(name); n {
	case toolcall.Read, toolcall.Write, toolcall.Edit:
		title = n + " " + rel(in.FilePath)
	case toolcall.Bash:
		title = in.Command
	case toolcall.Glob:
		title = "Glob " + in.Pattern
	case toolcall.Grep:
		title = "Grep " + in.Pattern
		if in.Path != "" {
			title += " in " + rel(in.Path)
		}
	case toolcall.WebFetch:
		title = "Fetch " + in.URL
	case toolcall.Task:
		title = "Task: " + in.Description
	case toolcall.Recall:
		title = "Recall " + in.Query
	case toolcall.TodoWrite:
		title = "Update the plan"
	case toolcall.BashOutput, toolcall.KillShell:
		title = n + " " + in.ShellID
	default:
		title = name
	}
	return termtext.FirstLine(strings.TrimSpace(title), 200, termtext.Ellipsis)
}

// toolLocations are the files a call reads or changes, absolute, for the
// client's "follow the agent".
func toolLocations(name string, input json.RawMessage, root string) []acpsdk.ToolCallLocation {
	c := toolcall.Classify(name, input)
	if c.Path == "" || (c.Effect != toolcall.Reads && c.Effect != toolcall.Changes && c.Effect != toolcall.Searches) {
		return nil
	}
	loc := acpsdk.ToolCallLocation{Path: absPath(root, c.Path)}
	if c.Effect == toolcall.Reads {
		var in callInput
		if json.Unmarshal(input, &in) == nil && in.Offset > 1 {
			loc.Line = &in.Offset
		}
	}
	return []acpsdk.ToolCallLocation{loc}
}

// absPath is p made absolute against root.
func absPath(root, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	return filepath.Clean(p)
}

// diffContent is the change a Write or Edit makes, as a diff the client
// shows: the file's content now (as the tools would read it: the editor's
// buffer when the client offers it) and after. Nil for other tools, or
// when the change cannot be computed (the Edit's text is not found: the
// call will fail and say so).
func (s *session) diffContent(ctx context.Context, name string, input json.RawMessage) []acpsdk.ToolCallContent {
	n, _ := toolcall.Name(name)
	if n != toolcall.Write && n != toolcall.Edit {
		return nil
	}
	var in callInput
	if json.Unmarshal(input, &in) != nil || in.FilePath == "" {
		return nil
	}
	path := absPath(s.cwd, in.FilePath)
	old, exists := s.currentText(ctx, path)
	if n == toolcall.Write {
		return []acpsdk.ToolCallContent{diff(path, old, exists, in.Content)}
	}
	switch {
	case in.OldString == "" && !exists:
		return []acpsdk.ToolCallContent{diff(path, "", false, in.NewString)}
	case !strings.Contains(old, in.OldString):
		return nil
	case in.ReplaceAll:
		return []acpsdk.ToolCallContent{diff(path, old, true, strings.ReplaceAll(old, in.OldString, in.NewString))}
	}
	return []acpsdk.ToolCallContent{diff(path, old, true, strings.Replace(old, in.OldString, in.NewString, 1))}
}

// diff is a diff content; oldText is left out for a file that does not
// exist yet.
func diff(path, old string, exists bool, updated string) acpsdk.ToolCallContent {
	if !exists {
		return acpsdk.ToolDiffContent(path, updated)
	}
	return acpsdk.ToolDiffContent(path, updated, old)
}

// currentText is a file's text for a diff: the editor's buffer when the
// client reads files for the tools, else the disk's; a file too large to
// show is treated as unreadable (no diff).
func (s *session) currentText(ctx context.Context, path string) (string, bool) {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxShownBytes*16 {
		return "", false
	}
	if s.srv.capabilities().Fs.ReadTextFile {
		if text, err := (&clientFiles{s: s}).ReadTextFile(ctx, path); err == nil {
			return text, true
		}
	}
	data, err := os.ReadFile(path)
	if err != nil || !utf8.Valid(data) {
		return "", false
	}
	return string(data), true
}

// resultContent is a finished call's result as the client shows it: the
// output (or the error), clipped.
func resultContent(res tools.Result) []acpsdk.ToolCallContent {
	text := res.Output
	if res.Error != "" {
		text = strings.TrimSpace(res.Output + "\n" + res.Error)
	}
	if text == "" {
		return nil
	}
	return []acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(clipText(text)))}
}

// clipText keeps the end of a text over maxShownBytes (a command's
// outcome is at its end), saying so.
func clipText(s string) string {
	if len(s) <= maxShownBytes {
		return s
	}
	cut := len(s) - maxShownBytes
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return fmt.Sprintf("[%d bytes before this are not shown]\n", cut) + s[cut:]
}
