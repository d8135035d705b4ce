package contextmgr

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/toolcall"
)

// The re-orientation packet tells a model that has just lost the detail
// of its work — after a compaction, a resume (-c, -r, /switch, /resume) or
// a handoff — where it stands, read from the records: the task in the
// user's own words, the calls made for it since (one line each, with how
// each ended), the files in flight, the open items of its task list, and
// the next step it said it would take. A compaction and a handoff write it
// into the afterword; a resume appends it as a system record of subtype
// reorientation right after the next user message, which the request
// sends as part of that message, after the user's words (a later resume keeps it: a resume
// restores exactly the context in force).

// Bounds of the packet: packetTokens in all at most, as the accountant's
// approx measures it (a small window gives it less: see carryOver).
const (
	packetTokens   = 1500
	packetMaxFiles = 15
	// packetShortTask: a user message this short ("go on", "yes") did not
	// start the work; the one before it is shown too.
	packetShortTask = 40
)

// packetBounds are how much of the task's words and how many of the
// latest calls a packet shows. After a compaction the detail is gone from
// the context, so it shows more; a resume's context still holds every
// word, so its packet only points the way (it is sent on every resume).
type packetBounds struct{ taskBytes, calls, tokens int }

var (
	compactionPacket = packetBounds{taskBytes: 1600, calls: 25, tokens: packetTokens}
	resumePacket     = packetBounds{taskBytes: 300, calls: 10, tokens: packetTokens}
)

const packetHeading = "Re-orientation (read from the session's records, not from any summary):"

var (
	// nextStep tells the sentence in which the model said what it would do.
	nextStep = regexp.MustCompile(`(?i)\b(?:next|then I|I will|I'll|I am going to|I'm going to)\b`)
	// sentenceEnd ends a sentence: a stop followed by a space or a line's
	// end ("vote.go" is no end).
	sentenceEnd = regexp.MustCompile(`[.!?](?:\s|$)|\n`)
)

// packetText is the packet for the live context es and the open items of
// the task list todos (nil: stated elsewhere); root makes paths relative;
// size measures a text (approx).
func packetText(es []*entry, todos *taskList, bounds packetBounds, root string, size func(string) int) string {
	start := taskStart(es)
	var b strings.Builder
	b.WriteString(packetHeading)
	if start >= 0 {
		fmt.Fprintf(&b, "\nThe current task, in the user's words:\n%s", quoted(taskWords(es, start, bounds.taskBytes)))
	}
	calls, files := packetCalls(es[max(start, 0):], root)
	if n := len(calls); n > 0 {
		fmt.Fprintf(&b, "\nDone since (%d tool calls, in order):", n)
		if n > bounds.calls {
			fmt.Fprintf(&b, "\n(%d earlier calls; Recall finds them)", n-bounds.calls)
			calls = calls[n-bounds.calls:]
		}
		for _, c := range calls {
			b.WriteString("\n- " + c)
		}
	}
	if len(files) > 0 {
		b.WriteString("\nFiles in flight: " + strings.Join(files, ", "))
	}
	var open []string
	for _, it := range todos.list() { // nil: the afterword lists them already
		if it.Status != chat.TodoCompleted {
			open = append(open, chat.TodoMark(it.Status)+" "+termtext.Flatten(it.Content, 200))
		}
	}
	if len(open) > 0 {
		b.WriteString("\nOpen items of your task list:\n" + strings.Join(open, "\n"))
	}
	if next := statedNext(es[max(start, 0):]); next != "" {
		b.WriteString("\nThe next step you stated: " + next)
	}
	text := b.String()
	for size(text) > bounds.tokens && len(text) > 200 {
		text = cutUTF8(text, len(text)*4/5) + "…"
	}
	return text
}

// taskStart is the index of the user message that started the current
// work: the last one, or the one before it when the last is a short
// go-ahead (-1 = none).
func taskStart(es []*entry) int {
	last := -1
	for i := len(es) - 1; i >= 0; i-- {
		r := es[i].rec
		if r.Type != storage.TypeUser || r.IsCompactSummary {
			continue
		}
		if last >= 0 {
			return i
		}
		last = i
		if len(strings.TrimSpace(messageContent(r))) > packetShortTask {
			return i
		}
	}
	return last
}

// taskWords is the user's messages from start on (the task, and a short
// go-ahead after it), cut to limit bytes keeping the beginning.
func taskWords(es []*entry, start, limit int) string {
	var parts []string
	for _, e := range es[start:] {
		if r := e.rec; r.Type == storage.TypeUser && !r.IsCompactSummary {
			parts = append(parts, strings.TrimSpace(messageContent(r)))
		}
	}
	text := strings.Join(parts, "\n\n")
	if len(text) > limit {
		text = cutUTF8(text, limit) + " …"
	}
	return text
}

func quoted(s string) string {
	return "> " + strings.ReplaceAll(s, "\n", "\n> ")
}

// packetCalls are the calls of es, one line each with how it ended, and
// the files written, edited or read (the last operation on each, the
// latest first).
func packetCalls(es []*entry, root string) (calls, files []string) {
	results := map[string]*storage.ToolResult{}
	for _, e := range es {
		if r := e.rec; r.Type == storage.TypeToolResult && r.ToolResult != nil {
			results[r.ToolResult.ID] = r.ToolResult
		}
	}
	lastOp := map[string]string{}
	var order []string
	for _, e := range es {
		r := e.rec
		if r.Type != storage.TypeToolUse || r.Tool == nil {
			continue
		}
		what, path := callSubject(r.Tool.Name, r.Tool.Input, root)
		res := results[r.Tool.ID]
		calls = append(calls, fmt.Sprintf("%s%s — %s", r.Tool.Name, what, callOutcome(res)))
		if path != "" && res != nil && res.Error == "" {
			if _, seen := lastOp[path]; !seen {
				order = append(order, path)
			}
			name, _ := toolcall.Name(r.Tool.Name)
			lastOp[path] = strings.ToLower(name)
		}
	}
	for i := len(order) - 1; i >= 0 && len(files) < packetMaxFiles; i-- {
		files = append(files, order[i]+" ("+lastOp[order[i]]+")")
	}
	return calls, files
}

// callSubject is what a call was about, for its line, and the file it
// touched ("" = none).
func callSubject(name string, input json.RawMessage, root string) (what, path string) {
	c := toolcall.Classify(name, input)
	if c.ReadsOrChanges() {
		path = toolcall.Rel(root, c.Path)
		return " " + path, path
	}
	var in map[string]any
	_ = json.Unmarshal(input, &in)
	str := func(k string) string { s, _ := in[k].(string); return s }
	switch c.Tool {
	case toolcall.Bash:
		return " `" + termtext.Flatten(c.Command, 160) + "`", ""
	case toolcall.Glob, toolcall.Grep:
		return " " + termtext.Flatten(str("pattern"), 80), ""
	case toolcall.Recall:
		return " " + termtext.Flatten(str("query")+str("ref"), 80), ""
	case toolcall.TodoWrite:
		if list, err := chat.ParseTodos(input); err == nil {
			done := 0
			for _, t := range list {
				if t.Status == chat.TodoCompleted {
					done++
				}
			}
			return fmt.Sprintf(" (%d/%d done)", done, len(list)), ""
		}
	}
	return "", ""
}

// callOutcome is how a call ended, in a few words.
func callOutcome(res *storage.ToolResult) string {
	switch {
	case res == nil:
		return "no result yet"
	case res.Error != "":
		return "failed: " + termtext.Flatten(res.Error, 120)
	}
	return "ok"
}

// statedNext is the last sentence of the model's latest reply in es that
// says what it will do next ("" = none).
func statedNext(es []*entry) string {
	for i := len(es) - 1; i >= 0; i-- {
		r := es[i].rec
		if r.Type != storage.TypeAssistant || r.Incomplete != "" {
			continue
		}
		text := strings.TrimSpace(messageContent(r))
		if text == "" {
			continue
		}
		found := ""
		for _, sentence := range sentences(text) {
			if nextStep.MatchString(sentence) {
				found = sentence
			}
		}
		return termtext.Flatten(found, 300)
	}
	return ""
}
