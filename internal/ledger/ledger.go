// Package ledger is the evidence ledger: what a summary most often drops
// — paths, commands, exit statuses, the error a command ended with, every
// test run's verdict (verdict.go: the summary lines of the common
// runners, passed or failed), the numbers the tools printed — read from
// the tool records a compaction takes out, without asking any model
// (every call read by toolcall.Classify).
//
// The context manager stores it on a compaction's boundary
// (compactMetadata.ledger, the storage.Ledger type), merges it into the
// next compaction's (a file or a command met again replaces its entry)
// and writes it to the model right after the summary within the share it
// gives (Fit): what does not fit is folded, and the boundary's ref, which
// Recall opens as the whole ledger with each entry's ref (Listing), keeps
// it one call away. The lines are written here, once, for both readers.
//
// Guarantees: the stored lists are bounded (the most recent entries of
// each); Fit's text never exceeds its budgets; nothing here reads a file
// or asks a model. Functions hold no state and are safe concurrently.
package ledger

import (
	"encoding/json"
	"fmt"
	"iter"
	"strconv"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/toolcall"
)

// Bounds of the ledger as stored: the most recent entries of each list.
const (
	maxFiles    = 200
	maxCommands = 100
	maxLines    = 60 // tests and errors, each
	// maxNumbers bounds the numbers as the files: most are what a
	// file's read showed, and go on its line.
	maxNumbers = maxFiles
	// linesPerCall is how many number lines one call adds.
	linesPerCall = 3
	lineBytes    = 160
	commandBytes = 300
)

// pendingCall is a tool_use record waiting for its result.
type pendingCall struct {
	ref  string
	call toolcall.Call
	// input is the call's arguments, for what a file call wrote or
	// changed.
	input map[string]any
}

// Read reads the ledger of recs (in order): each tool call with its
// result, the paths relative to root.
func Read(root string, recs iter.Seq[*storage.Record]) *storage.Ledger {
	l := &storage.Ledger{}
	calls := map[string]pendingCall{}
	for r := range recs {
		switch {
		case r.Type == storage.TypeToolUse && r.Tool != nil:
			var in map[string]any
			_ = json.Unmarshal(r.Tool.Input, &in)
			calls[r.Tool.ID] = pendingCall{ref: r.UUID, call: toolcall.Classify(r.Tool.Name, r.Tool.Input), input: in}
		case r.Type == storage.TypeToolResult && r.ToolResult != nil:
			c, ok := calls[r.ToolResult.ID]
			if !ok {
				continue
			}
			delete(calls, r.ToolResult.ID)
			note(l, root, c, r.ToolResult)
		}
	}
	return l
}

// note adds what one call and its result tell.
func note(l *storage.Ledger, root string, c pendingCall, res *storage.ToolResult) {
	source := c.call.Tool
	switch {
	case c.call.ReadsOrChanges():
		path := toolcall.Rel(root, c.call.Path)
		source = c.call.Tool + " " + path
		if res.Error != "" {
			addLine(&l.Errors, storage.LedgerLine{Text: termtext.Flatten(res.Error, lineBytes), Source: source, Ref: c.ref})
			return
		}
		addFile(l, storage.LedgerFile{Path: path, Op: fileOp(c.call), Lines: fileLines(c, res), Ref: c.ref})
	case c.call.Tool == toolcall.Bash:
		cmd := cutUTF8(strings.TrimSpace(c.call.Command), commandBytes)
		if cmd == "" {
			return
		}
		source = termtext.Flatten(cmd, 60)
		// A failed run in no known format keeps its last line with the
		// command (its outcome): only a passing one needs a test line.
		verdict, known := Verdict(cmd, res.Output)
		if !known && res.Error != "" {
			verdict = ""
		}
		addCommand(l, commandEntry(cmd, c.ref, res, verdict))
		if verdict != "" {
			addTest(l, storage.LedgerLine{Text: verdict, Source: source, Ref: c.ref})
		}
	default:
		if res.Error != "" {
			addLine(&l.Errors, storage.LedgerLine{Text: termtext.Flatten(res.Error, lineBytes), Source: source, Ref: c.ref})
		}
	}
	for _, n := range matchingLines(res.Output, numberLine(), linesPerCall) {
		addNumber(l, storage.LedgerLine{Text: n, Source: source, Ref: c.ref})
	}
}

// fileOp is a file call's operation as a ledger entry names it: read,
// write or edit (MultiEdit's included).
func fileOp(c toolcall.Call) string {
	switch {
	case c.Effect == toolcall.Reads:
		return "read"
	case c.Tool == toolcall.Write:
		return "write"
	}
	return "edit"
}

// numberKey is the named number a line shows (its last).
func numberKey(line string) string {
	all := numberLine().FindAllString(line, -1)
	if len(all) == 0 {
		return line
	}
	return strings.Join(strings.Fields(all[len(all)-1]), " ")
}

// addNumber adds a number line unless the ledger has the same named
// number already (a Grep finding the line a Read showed): the first
// stays, with the call that showed it — unless x is a file's read and the
// first is not (a Grep printed it before the file was read): then the
// number goes on the file's line, where it costs a few tokens and no
// second path or ref.
func addNumber(l *storage.Ledger, x storage.LedgerLine) {
	key := numberKey(x.Text)
	for i, y := range l.Numbers {
		if numberKey(y.Text) != key {
			continue
		}
		if !fileSource(x.Source) || fileSource(y.Source) {
			return
		}
		l.Numbers = append(l.Numbers[:i:i], l.Numbers[i+1:]...)
		break
	}
	l.Numbers = replaceLast(l.Numbers, x, func(y storage.LedgerLine) bool { return y.Text == x.Text }, maxNumbers)
}

// fileSource reports whether a line's source is a file's read, write or
// edit ("Read src/a.go").
func fileSource(source string) bool {
	name, _, ok := strings.Cut(source, " ")
	effect := toolcall.Classify(name, nil).Effect
	return ok && (effect == toolcall.Reads || effect == toolcall.Changes)
}

// fileLines is what a file call read, wrote or changed, in lines.
func fileLines(c pendingCall, res *storage.ToolResult) string {
	count := func(s string) int {
		if s == "" {
			return 0
		}
		return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
	}
	str := func(in map[string]any, k string) string { s, _ := in[k].(string); return s }
	switch fileOp(c.call) {
	case "read":
		return strconv.Itoa(count(res.Output))
	case "write":
		return strconv.Itoa(count(str(c.input, "content")))
	}
	edits := []map[string]any{c.input}
	if list, ok := c.input["edits"].([]any); ok { // MultiEdit's
		edits = edits[:0]
		for _, e := range list {
			if m, ok := e.(map[string]any); ok {
				edits = append(edits, m)
			}
		}
	}
	removed, added := 0, 0
	for _, e := range edits {
		removed += count(str(e, "old_string"))
		added += count(str(e, "new_string"))
	}
	return fmt.Sprintf("-%d +%d", removed, added)
}

func addFile(l *storage.Ledger, f storage.LedgerFile) {
	l.Files = replaceLast(l.Files, f, func(g storage.LedgerFile) bool { return g.Path == f.Path }, maxFiles)
}

func addCommand(l *storage.Ledger, c storage.LedgerCommand) {
	l.Commands = replaceLast(l.Commands, c, func(d storage.LedgerCommand) bool { return d.Command == c.Command }, maxCommands)
}

// addTest adds a test run's verdict: a later run of the same command
// replaces the earlier one's (what matters is whether the tests pass now).
func addTest(l *storage.Ledger, x storage.LedgerLine) {
	l.Tests = replaceLast(l.Tests, x, func(y storage.LedgerLine) bool { return y.Source == x.Source || y.Text == x.Text }, maxLines)
}

func addLine(list *[]storage.LedgerLine, x storage.LedgerLine) {
	*list = replaceLast(*list, x, func(y storage.LedgerLine) bool { return y.Text == x.Text }, maxLines)
}

// replaceLast appends x to list, dropping the entry same says it
// replaces, and keeps the last max.
func replaceLast[T any](list []T, x T, same func(T) bool, max int) []T {
	out := list[:0:0]
	for _, y := range list {
		if !same(y) {
			out = append(out, y)
		}
	}
	out = append(out, x)
	if len(out) > max {
		out = out[len(out)-max:]
	}
	return out
}

// Merge is prev with next's entries added after it, as if next's
// records came after prev's (nil = empty).
func Merge(prev, next *storage.Ledger) *storage.Ledger {
	if prev == nil {
		return next
	}
	l := &storage.Ledger{
		Files:    append([]storage.LedgerFile(nil), prev.Files...),
		Commands: append([]storage.LedgerCommand(nil), prev.Commands...),
		Tests:    append([]storage.LedgerLine(nil), prev.Tests...),
		Numbers:  append([]storage.LedgerLine(nil), prev.Numbers...),
		Errors:   append([]storage.LedgerLine(nil), prev.Errors...),
	}
	if next == nil {
		return l
	}
	for _, f := range next.Files {
		addFile(l, f)
	}
	for _, c := range next.Commands {
		addCommand(l, c)
	}
	for _, t := range next.Tests {
		addTest(l, t)
	}
	for _, n := range next.Numbers {
		addNumber(l, n)
	}
	for _, e := range next.Errors {
		addLine(&l.Errors, e)
	}
	return l
}

// empty reports whether l holds nothing.
func empty(l *storage.Ledger) bool {
	return l == nil || len(l.Files)+len(l.Commands)+len(l.Tests)+len(l.Numbers)+len(l.Errors) == 0
}
