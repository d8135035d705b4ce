package slash

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/clawdcode/clawdcode/internal/termtext"
)

// helpKeys is the keys section of /help: the REPL's bindings a user
// needs to find on their own.
var helpKeys = [][2]string{
	{"Enter", "send the message"},
	{"Shift-Enter, Alt-Enter, Ctrl-J", "new line in the message"},
	{"Up/Down, Ctrl-P/Ctrl-N", "earlier and later messages (history)"},
	{"Ctrl-R", "search the history"},
	{"Tab", "complete a command or a path"},
	{"Shift-Tab", "switch the permission mode (default, accept edits, plan)"},
	{"Ctrl-O", "show the last tool output in full"},
	{"Esc, Ctrl-C", "stop the running turn; Ctrl-C clears the line, twice on an empty line exits"},
	{"Ctrl-D", "exit on an empty line"},
	{"# text", "remember text (a line of its own): for this project or for every project"},
}

func helpCommand(r *Registry) Command {
	return Command{
		Name:    "help",
		Summary: "list the commands and keys",
		Run: func(_ context.Context, env *Env, _ string) error {
			var rows [][2]string
			for _, c := range r.Commands() {
				usage := "/" + c.Name
				if c.Args != "" {
					usage += " " + c.Args
				}
				// A custom command's summary is its file's: one line, shown.
				rows = append(rows, [2]string{termtext.Line(usage), termtext.Line(c.Summary)})
			}
			fmt.Fprintln(env.IO.Out, "Commands:")
			writeTable(env.IO.Out, rows, env.Width)
			fmt.Fprintln(env.IO.Out, "\nKeys:")
			writeTable(env.IO.Out, helpKeys[:], env.Width)
			return nil
		},
	}
}

// writeTable writes two-column rows indented by two spaces. With a width
// (a terminal) the second column wraps at words under itself. A name
// wider than the column (at most maxName, or half the width) has its
// description on the lines below, indented; so do all of them when the
// terminal leaves the descriptions less than 30 columns.
func writeTable(w io.Writer, rows [][2]string, width int) {
	const indent, gap, maxName = 2, 3, 32
	limit := maxName
	if width > 0 {
		limit = min(limit, width/2)
	}
	col := 0
	for _, r := range rows {
		if n := runewidth.StringWidth(r[0]); n <= limit {
			col = max(col, n)
		}
	}
	if width > 0 && width-indent-col-gap < 30 {
		col = 0 // too narrow for two columns: each description under its name
	}
	for _, r := range rows {
		pad := indent + col + gap
		first := strings.Repeat(" ", indent) + r[0]
		if runewidth.StringWidth(r[0]) > col {
			writeWrapped(w, r[0], indent, width)
			first = ""
		}
		lines := []string{r[1]}
		if width > 0 {
			lines = termtext.Wrap(r[1], width-pad-1)
		}
		for i, l := range lines {
			lead := strings.Repeat(" ", pad)
			if i == 0 && first != "" {
				lead = first + strings.Repeat(" ", pad-runewidth.StringWidth(first))
			}
			fmt.Fprintf(w, "%s%s\n", lead, l)
		}
	}
}

// writeWrapped writes s indented, wrapped at words when width > 0.
func writeWrapped(w io.Writer, s string, indent, width int) {
	lines := []string{s}
	if width > 0 {
		lines = termtext.Wrap(s, width-indent-1)
	}
	for _, l := range lines {
		fmt.Fprintf(w, "%s%s\n", strings.Repeat(" ", indent), l)
	}
}
