package contextmgr

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

// The evidence ledger is what a summary most often drops — paths,
// commands, exit statuses, the error a command ended with, test results,
// the numbers the tools printed — read from the tool records a compaction
// takes out, without asking any model. It is stored on the boundary
// (compactMetadata.ledger), merged into the next compaction's (a file or
// a command met again replaces its entry) and written to the model right
// after the summary, bounded: what does not fit is folded, and the
// boundary's ref, which Recall opens as the whole ledger with each
// entry's ref, keeps it one call away.

// Bounds of the ledger as stored: the most recent entries of each list.
const (
	ledgerMaxFiles    = 200
	ledgerMaxCommands = 100
	ledgerMaxLines    = 60 // tests and errors, each
	// ledgerMaxNumbers bounds the numbers as the files: most are what a
	// file's read showed, and go on its line.
	ledgerMaxNumbers = ledgerMaxFiles
	// ledgerLinesPerCall is how many test or number lines one call adds.
	ledgerLinesPerCall = 3
	ledgerLineBytes    = 160
	ledgerCommandBytes = 300
	// ledgerShare is the most of the request after a compaction the
	// ledger may take.
	ledgerShare = 0.15
)

var (
	// numberLine finds a named number: "limit = 4096", "p99: 35ms".
	numberLine = regexp.MustCompile(`[A-Za-z_][\w.\-]*\s*(?:=|:)\s*-?\d[\d_,]*(?:\.\d+)?`)
	// testLine finds a line reporting test results (go test, pytest,
	// cargo, jest and the like).
	testLine = regexp.MustCompile(`^(?:ok\s|FAIL\b|PASS\b|--- (?:FAIL|PASS)|test result:|Tests?:)|\b\d+ (?:passed|failed)\b`)
	// lineNumber is the prefix Read puts on each line, or Grep (a path and
	// a line number).
	lineNumber = regexp.MustCompile(`^(?:\s*\d+\t|[^\s:]+:\d+:)`)
)

// ledgerCall is a tool_use record waiting for its result.
type ledgerCall struct {
	ref, name string
	input     map[string]any
}

// readLedger reads the ledger of the records in es (in order), with paths
// relative to root.
func readLedger(root string, es []*entry) *storage.Ledger {
	l := &storage.Ledger{}
	calls := map[string]ledgerCall{}
	for _, e := range es {
		r := e.rec
		switch {
		case r.Type == storage.TypeToolUse && r.Tool != nil:
			var in map[string]any
			_ = json.Unmarshal(r.Tool.Input, &in)
			calls[r.Tool.ID] = ledgerCall{ref: r.UUID, name: r.Tool.Name, input: in}
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
func note(l *storage.Ledger, root string, c ledgerCall, res *storage.ToolResult) {
	str := func(k string) string { s, _ := c.input[k].(string); return s }
	source := c.name
	switch strings.ToLower(c.name) {
	case "read", "write", "edit":
		path := relPath(root, str("file_path"))
		if path == "" {
			return
		}
		source = c.name + " " + path
		if res.Error != "" {
			addLine(&l.Errors, storage.LedgerLine{Text: termtext.Flatten(res.Error, ledgerLineBytes), Source: source, Ref: c.ref})
			return
		}
		addFile(l, storage.LedgerFile{Path: path, Op: strings.ToLower(c.name), Lines: fileLines(c, str, res), Ref: c.ref})
	case "bash":
		cmd := cutUTF8(strings.TrimSpace(str("command")), ledgerCommandBytes)
		if cmd == "" {
			return
		}
		addCommand(l, commandEntry(cmd, c.ref, res))
		for _, t := range matchingLines(res.Output, testLine, ledgerLinesPerCall) {
			addLine(&l.Tests, storage.LedgerLine{Text: t, Source: termtext.Flatten(cmd, 60), Ref: c.ref})
		}
		source = termtext.Flatten(cmd, 60)
	default:
		if res.Error != "" {
			addLine(&l.Errors, storage.LedgerLine{Text: termtext.Flatten(res.Error, ledgerLineBytes), Source: source, Ref: c.ref})
		}
	}
	for _, n := range matchingLines(res.Output, numberLine, ledgerLinesPerCall) {
		addNumber(l, storage.LedgerLine{Text: n, Source: source, Ref: c.ref})
	}
}

// numberKey is the named number a line shows (its last).
func numberKey(line string) string {
	all := numberLine.FindAllString(line, -1)
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
	l.Numbers = replaceLast(l.Numbers, x, func(y storage.LedgerLine) bool { return y.Text == x.Text }, ledgerMaxNumbers)
}

// fileSource reports whether a line's source is a file's read, write or
// edit ("Read src/a.go").
func fileSource(source string) bool {
	name, _, ok := strings.Cut(source, " ")
	switch strings.ToLower(name) {
	case "read", "write", "edit":
		return ok
	}
	return false
}

// fileLines is what a file call read, wrote or changed, in lines.
func fileLines(c ledgerCall, str func(string) string, res *storage.ToolResult) string {
	count := func(s string) int {
		if s == "" {
			return 0
		}
		return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
	}
	switch strings.ToLower(c.name) {
	case "read":
		return strconv.Itoa(count(res.Output))
	case "write":
		return strconv.Itoa(count(str("content")))
	}
	return fmt.Sprintf("-%d +%d", count(str("old_string")), count(str("new_string")))
}

// commandEntry is a Bash call's entry: its exit status from the tool's
// error ("exit status N"; anything else did not exit), and, when it
// failed, the last two lines of its output.
func commandEntry(cmd, ref string, res *storage.ToolResult) storage.LedgerCommand {
	c := storage.LedgerCommand{Command: cmd, Ref: ref}
	if res.Error == "" {
		return c
	}
	c.Exit = -1
	if n, ok := strings.CutPrefix(res.Error, "exit status "); ok {
		if v, err := strconv.Atoi(strings.TrimSpace(n)); err == nil {
			c.Exit = v
		}
	}
	var tail []string
	lines := strings.Split(strings.TrimRight(res.Output, "\n"), "\n")
	for i := len(lines) - 1; i >= 0 && len(tail) < 2; i-- {
		if s := strings.TrimSpace(lines[i]); s != "" {
			tail = append([]string{termtext.Flatten(s, ledgerLineBytes)}, tail...)
		}
	}
	if c.Exit < 0 {
		tail = append(tail, termtext.Flatten(res.Error, ledgerLineBytes))
	}
	c.Error = strings.Join(tail, " | ")
	return c
}

// matchingLines are the first n lines of out that re matches, trimmed
// and cut (Read's line numbers taken off).
func matchingLines(out string, re *regexp.Regexp, n int) []string {
	var found []string
	for line := range strings.SplitSeq(out, "\n") {
		// A named number holds a digit, and so does a line number: a line
		// without one is passed over without running either regexp over
		// it (a megabyte-long line of a minified file, say).
		if re == numberLine && !strings.ContainsAny(line, "0123456789") {
			continue
		}
		line = strings.TrimSpace(lineNumber.ReplaceAllString(line, ""))
		if line == "" || !re.MatchString(line) || (re == numberLine && !namesANumber(line)) {
			continue
		}
		found = append(found, termtext.Flatten(line, ledgerLineBytes))
		if len(found) == n {
			break
		}
	}
	return found
}

// namesANumber keeps the numbers worth a line: two digits or more (a
// "= 1" is rarely what work turns on).
func namesANumber(line string) bool {
	for _, m := range numberLine.FindAllString(line, -1) {
		digits := 0
		for _, r := range m[strings.IndexAny(m, "=:"):] {
			if r >= '0' && r <= '9' {
				digits++
			}
		}
		if digits >= 2 {
			return true
		}
	}
	return false
}

func relPath(root, p string) string {
	if p == "" || !filepath.IsAbs(p) || root == "" {
		return p
	}
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

func addFile(l *storage.Ledger, f storage.LedgerFile) {
	l.Files = replaceLast(l.Files, f, func(g storage.LedgerFile) bool { return g.Path == f.Path }, ledgerMaxFiles)
}

func addCommand(l *storage.Ledger, c storage.LedgerCommand) {
	l.Commands = replaceLast(l.Commands, c, func(d storage.LedgerCommand) bool { return d.Command == c.Command }, ledgerMaxCommands)
}

func addLine(list *[]storage.LedgerLine, x storage.LedgerLine) {
	*list = replaceLast(*list, x, func(y storage.LedgerLine) bool { return y.Text == x.Text }, ledgerMaxLines)
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

// mergeLedger is prev with next's entries added after it, as if next's
// records came after prev's (nil = empty).
func mergeLedger(prev, next *storage.Ledger) *storage.Ledger {
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
		addLine(&l.Tests, t)
	}
	for _, n := range next.Numbers {
		addNumber(l, n)
	}
	for _, e := range next.Errors {
		addLine(&l.Errors, e)
	}
	return l
}

// ledgerEmpty reports whether l holds nothing.
func ledgerEmpty(l *storage.Ledger) bool {
	return l == nil || len(l.Files)+len(l.Commands)+len(l.Tests)+len(l.Numbers)+len(l.Errors) == 0
}
