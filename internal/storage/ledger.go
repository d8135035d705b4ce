package storage

import (
	"fmt"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"regexp"
	"strings"
)

// The ledger's lines are written in one place, here, because two readers
// show them: the context manager writes the ledger into the request after
// a compaction (bounded, what does not fit folded), and Recall shows the
// whole ledger a boundary stored when the model opens the boundary by its
// ref. Each is one short line an entry, so that as many entries as
// possible fit the request's share: a file is its path and the numbers
// its read showed as bare name=value tokens, a command is the command, its
// exit status and a failure's last output.

// LedgerSections are the headings of a ledger's sections, in the order
// LedgerEntry.Section indexes them.
var LedgerSections = []string{"Files:", "Commands:", "Test results:", "Numbers:", "Errors:"}

// The sections of a ledger's text.
const (
	LedgerSectionFiles = iota
	LedgerSectionCommands
	LedgerSectionTests
	LedgerSectionNumbers
	LedgerSectionErrors
)

// LedgerEntry is one line of a ledger's text: its section, the line, the
// ref of the call it came from, and what a reader needs to weigh it — a
// file's last operation, a command's exit status, whether a file's line
// carries the numbers its read showed.
type LedgerEntry struct {
	Section    int
	Line, Ref  string
	Op         string // a file's: read, write, edit
	Exit       int    // a command's
	HasNumbers bool   // a file's line carries numbers
}

// namedNumber is a number with its name ("limit = 4096", "p99: 35ms"),
// its unit kept; spacedNumber one written with blanks around its = or :
// (not "main.go:3").
var (
	namedNumber  = regexp.MustCompile(`([A-Za-z_][\w.\-]*)\s*[=:]\s*(` + numberValue + `)`)
	spacedNumber = regexp.MustCompile(`([A-Za-z_][\w.\-]*)(?:\s+[=:]\s*|[=:]\s+)(` + numberValue + `)`)
)

// numberValue is a number's value: digits, maybe grouped ("1,024"), a
// fraction, a unit.
const numberValue = `-?\d(?:[\d_,]*\d)?(?:\.\d+)?[A-Za-z%µ]*`

// BareNumbers is the named numbers of a line as name=value tokens
// ("budget limit = 4096, p99: 35ms" → "limit=4096 p99=35ms"), the line
// itself when it names none.
func BareNumbers(line string) string {
	var out []string
	for _, m := range namedNumber.FindAllStringSubmatch(line, -1) {
		out = append(out, m[1]+"="+m[2])
	}
	if len(out) == 0 {
		return line
	}
	return strings.Join(out, " ")
}

// Entries is l's lines in order, section by section. The numbers a
// file's read showed go on the file's line (one path and one ref instead
// of two).
func (l *Ledger) Entries() []LedgerEntry {
	if l == nil {
		return nil
	}
	var out []LedgerEntry
	byRef := map[string]int{}
	for _, f := range l.Files {
		line := f.Path
		switch f.Op {
		case "write":
			line += " written, " + f.Lines + " lines"
		case "edit":
			line += " edited " + f.Lines
		}
		byRef[f.Ref] = len(out)
		out = append(out, LedgerEntry{Section: LedgerSectionFiles, Line: line, Ref: f.Ref, Op: f.Op})
	}
	for _, c := range l.Commands {
		out = append(out, LedgerEntry{Section: LedgerSectionCommands, Line: c.Line(), Ref: c.Ref, Exit: c.Exit})
	}
	for i, lines := range [][]LedgerLine{l.Tests, l.Numbers, l.Errors} {
		section := LedgerSectionTests + i
		for _, x := range lines {
			if j, ok := byRef[x.Ref]; ok && section == LedgerSectionNumbers {
				out[j].Line += " " + BareNumbers(x.Text)
				out[j].HasNumbers = true
				continue
			}
			text := x.Text
			if section == LedgerSectionNumbers {
				text = squeezeNumbers(text)
			}
			out = append(out, LedgerEntry{Section: section, Line: text + " (" + x.Source + ")", Ref: x.Ref})
		}
	}
	return out
}

// Line is the command's line: the command (flattened to one line of at
// most 200 characters: a ledger is an entry a line), its exit status and,
// when it failed, the last of its output.
func (c LedgerCommand) Line() string {
	command := termtext.Flatten(c.Command, 200)
	switch {
	case c.Exit == 0:
		return command + " → exit status 0"
	case c.Exit < 0:
		return command + " → did not exit: " + c.Error
	}
	return fmt.Sprintf("%s → exit status %d: %s", command, c.Exit, c.Error)
}

// squeezeNumbers writes a line's named numbers without the blanks around
// their = or : ("retry budget = 48" → "retry budget=48").
func squeezeNumbers(line string) string {
	return spacedNumber.ReplaceAllString(line, "$1=$2")
}

// Listing is the whole ledger as Recall shows a boundary: every entry
// under its section's heading, each with the ref that opens its call.
func (l *Ledger) Listing() string {
	var b strings.Builder
	section := -1
	for _, e := range l.Entries() {
		if e.Section != section {
			section = e.Section
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(LedgerSections[section])
		}
		fmt.Fprintf(&b, "\n%s ref=%s", e.Line, ShortRef(e.Ref))
	}
	return b.String()
}

// ShortRef is the prefix of a record's uuid a ledger shows: Recall takes
// a unique prefix, and a whole uuid costs twenty tokens.
func ShortRef(ref string) string {
	const refLen = 8
	if len(ref) > refLen {
		return ref[:refLen]
	}
	return ref
}
