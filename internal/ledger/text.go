package ledger

import (
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

// The ledger's lines are written in one place, here, because two readers
// show them: the context manager writes the ledger into the request after
// a compaction (Fit: bounded, what does not fit folded), and Recall shows
// the whole ledger a boundary stored when the model opens the boundary by
// its ref (Listing). Each is one short line an entry, so that as many entries as
// possible fit the request's share: a file is its path and the numbers
// its read showed as bare name=value tokens, a command is the command, its
// exit status and a failure's last output.

// sections are the headings of a ledger's sections, in the order
// entry.Section indexes them.
var sections = []string{"Files:", "Commands:", "Test results:", "Numbers:", "Errors:"}

// The sections of a ledger's text.
const (
	sectionFiles = iota
	sectionCommands
	sectionTests
	sectionNumbers
	sectionErrors
)

// entry is one line of a ledger's text: its section, the line, the
// ref of the call it came from, and what a reader needs to weigh it — a
// file's last operation, a command's exit status, whether a file's line
// carries the numbers its read showed.
type entry struct {
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
	namedNumber  = lazy(`([A-Za-z_][\w.\-]*)\s*[=:]\s*(` + numberValue + `)`)
	spacedNumber = lazy(`([A-Za-z_][\w.\-]*)(?:\s+[=:]\s*|[=:]\s+)(` + numberValue + `)`)
)

// numberValue is a number's value: digits, maybe grouped ("1,024"), a
// fraction, a unit.
const numberValue = `-?\d(?:[\d_,]*\d)?(?:\.\d+)?[A-Za-z%µ]*`

// bareNumbers is the named numbers of a line as name=value tokens
// ("budget limit = 4096, p99: 35ms" → "limit=4096 p99=35ms"), the line
// itself when it names none.
func bareNumbers(line string) string {
	var out []string
	for _, m := range namedNumber().FindAllStringSubmatch(line, -1) {
		out = append(out, m[1]+"="+m[2])
	}
	if len(out) == 0 {
		return line
	}
	return strings.Join(out, " ")
}

// entries is l's lines in order, section by section. The numbers a
// file's read showed go on the file's line (one path and one ref instead
// of two).
func entries(l *storage.Ledger) []entry {
	if l == nil {
		return nil
	}
	var out []entry
	byRef := map[string]int{}
	for _, f := range l.Files {
		line := f.Path
		switch f.Op {
		case "write":
			if f.Lines == "1" {
				line += " written, 1 line"
			} else {
				line += " written, " + f.Lines + " lines"
			}
		case "edit":
			line += " edited " + f.Lines
		}
		byRef[f.Ref] = len(out)
		out = append(out, entry{Section: sectionFiles, Line: line, Ref: f.Ref, Op: f.Op})
	}
	for _, c := range l.Commands {
		out = append(out, entry{Section: sectionCommands, Line: commandLine(c), Ref: c.Ref, Exit: c.Exit})
	}
	for i, lines := range [][]storage.LedgerLine{l.Tests, l.Numbers, l.Errors} {
		section := sectionTests + i
		for _, x := range lines {
			if j, ok := byRef[x.Ref]; ok && section == sectionNumbers {
				out[j].Line += " " + bareNumbers(x.Text)
				out[j].HasNumbers = true
				continue
			}
			text := x.Text
			if section == sectionNumbers {
				text = squeezeNumbers(text)
			}
			out = append(out, entry{Section: section, Line: text + " (" + x.Source + ")", Ref: x.Ref})
		}
	}
	return out
}

// commandLine is a command's line: the command (flattened to one line of at
// most 200 characters: a ledger is an entry a line), its exit status and,
// when it failed, the last of its output.
func commandLine(c storage.LedgerCommand) string {
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
	return spacedNumber().ReplaceAllString(line, "$1=$2")
}

// Listing is the whole ledger as Recall shows a boundary: every entry
// under its section's heading, each with the ref that opens its call.
func Listing(l *storage.Ledger) string {
	var b strings.Builder
	section := -1
	for _, e := range entries(l) {
		if e.Section != section {
			section = e.Section
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(sections[section])
		}
		fmt.Fprintf(&b, "\n%s ref=%s", e.Line, shortRef(e.Ref))
	}
	return b.String()
}

// shortRef is the prefix of a record's uuid a ledger shows: Recall takes
// a unique prefix, and a whole uuid costs twenty tokens.
func shortRef(ref string) string {
	const refLen = 8
	if len(ref) > refLen {
		return ref[:refLen]
	}
	return ref
}
