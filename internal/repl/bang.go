package repl

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/tools"
)

const (
	// shellTimeout bounds a !command.
	shellTimeout = 10 * time.Minute
	// shellKeep is how much of a !command's output goes to the model.
	shellKeep = 30 << 10
	// attachLimit bounds one @file attached to a message, attachTotal all.
	attachLimit = 256 << 10
	attachTotal = 1 << 20
)

// shellCommand runs a !command line in the project: its output is shown
// like a tool's and kept to go to the model with the next message, so the
// model knows what the user saw.
func (s *session) shellCommand(ctx context.Context, command string) error {
	ctx, cancel := context.WithTimeout(ctx, shellTimeout)
	defer cancel()
	shell := "bash"
	if _, err := exec.LookPath(shell); err != nil {
		shell = "sh"
	}
	cmd := exec.CommandContext(ctx, shell, "-c", command)
	cmd.Dir = s.projectRoot()
	// Read into a bounded buffer: `!yes` must not fill memory.
	out := tools.NewCappedBuffer(shellKeep)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // the terminal stays the REPL's
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	// A spinner while it runs, as for a turn: the command may take a
	// while, and Esc or Ctrl-C stops it.
	spin := newSpinner(s.io.ErrOut, s.width)
	spin.Start(ctx.Done(), "running !"+termtext.FirstLine(command, 60, termtext.Ellipsis))
	err := cmd.Run()
	spin.Stop()
	res := tools.Result{Output: out.String()}
	status := "exit status 0"
	if err != nil {
		res.Error = err.Error()
		status = err.Error()
		if ctx.Err() != nil {
			res.Error, status = "interrupted", "interrupted"
		}
	}
	head, body := resultLines(tools.NameBash, res, s.cs, nil, "", 0)
	writeToolResult(s.io.ErrOut, s.cs, head, body, toolPreviewLines-1, s.width())
	s.con.setLast(&toolShown{call: "!" + command, lines: append([]string{head}, body...)})

	text := out.String()
	s.pending = append(s.pending, fmt.Sprintf("[The user ran a shell command in the project]\n$ %s\n%s\n(%s)", command, strings.TrimRight(text, "\n"), status))
	s.say("  " + styleWords(s.cs.dim, "(the output goes to the model with your next message)"))
	return nil
}

// withContext is the message sent for text: text, then the output of
// !commands run since the last message, then the content of each project
// file it names with @path. The user's own words come first, so that
// they — never a command's output — title a new session.
func (s *session) withContext(text string) string {
	var b strings.Builder
	b.WriteString(text)
	for _, p := range s.pending {
		b.WriteString("\n\n" + p)
	}
	s.pending = nil
	b.WriteString(s.attachments(text))
	return b.String()
}

var mention = regexp.MustCompile(`(?:^|\s)@([^\s@]+)`)

// attachments are the files named by @path in text, as blocks to append.
func (s *session) attachments(text string) string {
	root := s.projectRoot()
	if root == "" || !strings.Contains(text, "@") {
		return ""
	}
	var b strings.Builder
	seen := map[string]bool{}
	total := 0
	for _, m := range mention.FindAllStringSubmatch(text, -1) {
		rel := strings.TrimRight(m[1], ".,;:!?)")
		if seen[rel] {
			continue
		}
		seen[rel] = true
		path := filepath.Join(root, filepath.FromSlash(rel))
		if r, err := filepath.Rel(root, path); err != nil || r == ".." || strings.HasPrefix(r, "../") {
			continue
		}
		fi, err := os.Stat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if fi.Size() > attachLimit || total+int(fi.Size()) > attachTotal {
			s.say("  " + styleWords(s.cs.warn, "⚠ @"+safe(rel)+" is too big to attach; the model can Read it"))
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil || bytes.IndexByte(data, 0) >= 0 {
			continue
		}
		total += len(data)
		fmt.Fprintf(&b, "\n\n<file path=%q>\n%s\n</file>", rel, strings.TrimRight(string(data), "\n"))
		s.say("  " + styleWords(s.cs.dim, fmt.Sprintf("⎿  attached %s (%s)", safe(rel), plural(strings.Count(string(data), "\n")+1, "line"))))
	}
	return b.String()
}
