package repl

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/tools"
)

const (
	// toolPreviewLines of a tool's output are shown under its call; the
	// rest is counted ("… +N lines") and shown by Ctrl-O or /expand.
	toolPreviewLines = 5
	// diffPreviewLines of an edit's diff are shown at once.
	diffPreviewLines = 40
	// todoPreviewLines of a task list (TodoWrite) are shown under its
	// call: the list is what the user follows the work by.
	todoPreviewLines = 30
	// snapshotLimit: a file bigger than this is not read to show its diff.
	snapshotLimit = 2 << 20
)

// toolShown is the last tool output, kept whole for Ctrl-O and /expand.
type toolShown struct {
	call  string   // "Bash(go test ./...)"
	lines []string // everything, styled
}

// fileSnapshot is a file's content just before a Write or Edit runs.
type fileSnapshot struct {
	path    string
	content string
	exists  bool
	ok      bool // false: too big or unreadable, no diff
}

func snapshot(path string) fileSnapshot {
	fi, err := os.Stat(path)
	if os.IsNotExist(err) {
		return fileSnapshot{ok: true}
	}
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > snapshotLimit {
		return fileSnapshot{exists: err == nil}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return fileSnapshot{exists: true}
	}
	return fileSnapshot{content: string(b), exists: true, ok: true}
}

// filePath is a Write or Edit call's file, absolute.
func filePath(input json.RawMessage, root string) string {
	var args struct {
		FilePath string `json:"file_path"`
	}
	if json.Unmarshal(input, &args) != nil || args.FilePath == "" {
		return ""
	}
	if !filepath.IsAbs(args.FilePath) {
		return filepath.Join(root, args.FilePath)
	}
	return filepath.Clean(args.FilePath)
}

// resultLines lays out what a tool's result shows: all its lines (the
// caller shows the first few), and the error line apart in red. A diff's
// long lines wrap at words to width columns (writeToolResult's indent
// taken off; 0: no wrap), never cut at the terminal's edge.
func resultLines(name string, res tools.Result, cs colorScheme, before *fileSnapshot, after string, width int) (head string, body []string) {
	out := strings.TrimRight(safe(res.Output), "\n")
	switch {
	case (name == tools.NameWrite || name == tools.NameEdit) && res.Error == "" && before != nil && before.ok:
		v := newDiffView(before.content, after, !before.exists, cs)
		if width > 0 {
			return v.summary(), v.render(width - resultIndent)
		}
		return v.summary(), v.lines
	case res.Error != "":
		return failureHead(res.Error, out, cs), outputLines(out)
	case name == tools.NameRead && res.Error == "":
		return "Read " + plural(strings.Count(out, "\n")+1, "line"), nil
	case name == tools.NameGlob && res.Error == "" && out != "":
		lines := strings.Split(out, "\n")
		return "Found " + plural(len(lines), "file"), lines
	}
	lines := outputLines(out)
	if len(lines) == 0 {
		return cs.dim("(no output)"), nil
	}
	return lines[0], lines[1:]
}

// outputLines are the lines of a tool's output (made safe), none for none.
func outputLines(out string) []string {
	if out == "" || out == "(no output)" {
		return nil
	}
	return strings.Split(out, "\n")
}

// failureHead is the first line of a failed call, so that the collapsed
// view never looks like success: the failure in red ("exit 2" for a
// command's exit status) and the output's last non-blank line, which is
// usually what went wrong (the error a command printed last, a traceback's
// exception, make's "Error 1"). The output itself follows under it.
func failureHead(errText, out string, cs colorScheme) string {
	status := termtext.FirstLine(errText, 0, " …")
	if code, ok := strings.CutPrefix(status, "exit status "); ok {
		status = "exit " + code
	}
	head := cs.err(safe(status))
	lines := outputLines(out)
	for i := len(lines) - 1; i >= 0; i-- {
		if last := strings.TrimSpace(lines[i]); last != "" {
			return head + cs.dim(" · ") + last
		}
	}
	return head
}

// resultIndent is the columns writeToolResult puts before a line.
const resultIndent = 5

// writeToolResult prints the result under its call: head, then at most
// limit more lines and a count of the rest.
func writeToolResult(w io.Writer, cs colorScheme, head string, body []string, limit, width int) {
	fmt.Fprintf(w, "  %s  %s\n", cs.dim("⎿"), clipStyled(head, width-5))
	shown := body
	if limit > 0 && len(body) > limit {
		shown = body[:limit]
	}
	for _, l := range shown {
		fmt.Fprintf(w, "     %s\n", clipStyled(l, width-5))
	}
	if rest := len(body) - len(shown); rest > 0 {
		fmt.Fprintf(w, "     %s\n", cs.dim(fmt.Sprintf("… +%s (ctrl+o to expand)", plural(rest, "line"))))
	}
}

// clipStyled cuts a line that may hold SGR styles to w columns; a styled
// line that must be cut loses its styles rather than leave one open.
func clipStyled(s string, w int) string {
	if w <= 0 || visibleWidth(s) <= w {
		return s
	}
	return clipWidth(ansiSGR.ReplaceAllString(s, ""), w)
}

// safe makes text from outside (a tool's output, a file, a title) inert
// on a terminal: termtext is the one place that decides how.
func safe(s string) string { return termtext.Safe(s) }

// writeExpanded prints a tool output in full (Ctrl-O, /expand).
func writeExpanded(w io.Writer, cs colorScheme, ts *toolShown, width int) {
	if ts == nil {
		fmt.Fprintln(w, cs.dim("no tool output to expand yet"))
		return
	}
	fmt.Fprintln(w, cs.dim("── full output of "+ts.call+" ──"))
	for _, l := range ts.lines {
		fmt.Fprintln(w, "  "+l)
	}
	fmt.Fprintln(w, cs.dim("── end of "+ts.call+" ──"))
}
