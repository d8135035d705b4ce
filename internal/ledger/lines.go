package ledger

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

var (
	// numberLine finds a named number: "limit = 4096", "p99: 35ms".
	numberLine = lazy(`[A-Za-z_][\w.\-]*\s*(?:=|:)\s*-?\d[\d_,]*(?:\.\d+)?`)
	// lineNumber is the prefix Read puts on each line, or Grep (a path and
	// a line number).
	lineNumber = lazy(`^(?:\s*\d+\t|[^\s:]+:\d+:)`)
)

// commandEntry is a Bash call's entry: its exit status from the tool's
// error ("exit status N"; anything else did not exit), and, when it
// failed, its outcome: the first diagnostic its output holds (a
// compiler's or a linter's "file:line: message", an "error: …") and its
// last line, each unless the run's verdict (in the test results) holds
// it already.
func commandEntry(cmd, ref string, res *storage.ToolResult, verdict string) storage.LedgerCommand {
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
	for _, line := range outcome(res.Output) {
		if !strings.Contains(verdict, line) {
			tail = append(tail, line)
		}
	}
	if c.Exit < 0 {
		tail = append(tail, termtext.Flatten(res.Error, lineBytes))
	}
	c.Error = strings.Join(tail, " | ")
	return c
}

// diagnostic is a line that reports an error: a compiler's or a linter's
// "path:line[:col]: message" or "path(line,col): error", an eslint
// "line:col  error", or one that begins "error" or "fatal".
var diagnostic = lazy(`(?i)^(?:[^\s:]+:\d+(?::\d+)?:\s|\S+\(\d+,\d+\): error\b|\d+:\d+\s+error\b|(?:error|fatal)\b)`)

// outcome is what a failed command's output ended with: its first
// diagnostic line, when there is one, and its last line.
func outcome(out string) []string {
	lines := outputLines(out)
	if len(lines) == 0 {
		return nil
	}
	last := lines[len(lines)-1]
	var kept []string
	if i := slices.IndexFunc(lines, diagnostic().MatchString); i >= 0 && i < len(lines)-1 {
		kept = append(kept, termtext.Flatten(lines[i], lineBytes))
	}
	return append(kept, termtext.Flatten(last, lineBytes))
}

// matchingLines are the first n lines of out that re matches, trimmed
// and cut (Read's line numbers taken off).
func matchingLines(out string, re *regexp.Regexp, n int) []string {
	var found []string
	for line := range strings.SplitSeq(out, "\n") {
		// A named number holds a digit, and so does a line number: a line
		// without one is passed over without running either regexp over
		// it (a megabyte-long line of a minified file, say).
		if re == numberLine() && !strings.ContainsAny(line, "0123456789") {
			continue
		}
		line = strings.TrimSpace(lineNumber().ReplaceAllString(line, ""))
		if line == "" || !re.MatchString(line) || (re == numberLine() && !namesANumber(line)) {
			continue
		}
		found = append(found, termtext.Flatten(line, lineBytes))
		if len(found) == n {
			break
		}
	}
	return found
}

// namesANumber keeps the numbers worth a line: two digits or more (a
// "= 1" is rarely what work turns on).
func namesANumber(line string) bool {
	for _, m := range numberLine().FindAllString(line, -1) {
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

// Numbers are the first n lines of text that name a number worth a line
// ("limit = 4096", "p99: 35ms"; two digits or more), as the ledger keeps
// them: trimmed, cut, Read's line numbers taken off. A cleared tool
// result's stub keeps the same.
func Numbers(text string, n int) []string {
	return matchingLines(text, numberLine(), n)
}

// cutUTF8 returns the longest prefix of s of at most n bytes that does not
// split a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
