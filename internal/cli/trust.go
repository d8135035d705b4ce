package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/config"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"golang.org/x/term"
)

// trustFileName is where the answers to the workspace-trust question are
// kept, under CLAWDCODE_HOME.
const trustFileName = "trusted-projects.json"

// trustRecords is trusted-projects.json: per project file path, the
// SHA-256 of the content the user answered about and the answer. A file
// whose content changed is asked about again.
type trustRecords struct {
	Projects map[string]trustRecord `json:"projects"`
}

type trustRecord struct {
	SHA256  string `json:"sha256"`
	Trusted bool   `json:"trusted"`
}

// trustSubject is what a trust question is about: a path (the key of
// trusted-projects.json), the sum of the content answered about (a change
// asks again) and the lines that say what trusting it allows.
type trustSubject struct {
	path, sum string
	asks      []string
	question  string // "" = the project file's
}

// projectTrust is config.Sources.TrustProject for a run (CONTRACT.md §7):
// the answer remembered for this content of the file, else yes with
// --trust-project (flag), else the question when someone can answer it
// (canAsk: the REPL with a terminal on stdin), else no. A file trusted
// only by the flag, or not at all, is marked so that clawdcode's own
// change to it (trustedChange) does not put it on record as trusted.
func (f *Factory) projectTrust(ctx context.Context, flag, canAsk bool) func(*config.File) bool {
	return func(file *config.File) bool {
		trusted, onRecord := f.decideTrust(ctx, trustSubject{path: file.Path, sum: file.SHA256, asks: file.Asks()}, flag, canAsk)
		f.projectDistrusted.Store(!onRecord)
		return trusted
	}
}

// decideTrust is projectTrust's decision, and whether it is a yes on
// record in trusted-projects.json (remembered, or answered now).
func (f *Factory) decideTrust(ctx context.Context, subj trustSubject, flag, canAsk bool) (trusted, onRecord bool) {
	home, err := f.HomeDir()
	if err != nil {
		return flag, false
	}
	path := filepath.Join(home, trustFileName)
	recs := readTrust(path, warnTo(f.IO.ErrOut))
	if r, ok := recs.Projects[subj.path]; ok && r.SHA256 == subj.sum {
		return r.Trusted || flag, r.Trusted
	}
	if flag || !canAsk {
		return flag, false
	}
	answer, ok := f.askTrust(ctx, subj)
	if !ok {
		return false, false
	}
	f.rememberTrust(path, subj.path, subj.sum, answer)
	return answer, answer
}

// askTrust puts the question on the terminal: on stderr, where the REPL's
// prompt goes, so that it is seen and answered when stdout is piped
// (clawdcode | tee log) — or on stdout when only stdout is a terminal
// (clawdcode 2>log). It runs before the REPL takes the terminal; one key
// answers (y, or anything else for no: readAnswer). Interrupted (ctx
// done) before an answer, ok is false: the run is ending.
func (f *Factory) askTrust(ctx context.Context, subj trustSubject) (trusted, ok bool) {
	out := f.IO.ErrOut
	if !f.IO.IsStderrTTY() && f.IO.IsStdoutTTY() {
		out = f.IO.Out
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s asks to:\n", termtext.Safe(subj.path))
	for _, a := range subj.asks {
		fmt.Fprintf(&b, "  - %s\n", termtext.Safe(a))
	}
	b.WriteString("A cloned repository can run commands and reach your credentials this way.\n")
	q := subj.question
	if q == "" {
		q = "Trust this file? (y = use it, N = ignore these settings this time)"
	}
	b.WriteString(q + " [y/N] ")
	fmt.Fprint(out, b.String())
	answer := make(chan string, 1)
	go func() { answer <- f.readAnswer() }()
	select {
	case a := <-answer:
		if a == interruptAnswer {
			fmt.Fprintln(out)
			return false, false
		}
		trusted = yes(a)
		if trusted {
			fmt.Fprintln(out, "yes")
		} else {
			fmt.Fprintln(out, "no")
		}
		return trusted, true
	case <-ctx.Done():
		fmt.Fprintln(out)
		return false, false
	}
}

// readAnswer reads the answer to a yes/no question: one key on a
// terminal, without Enter (the terminal is raw for that key only; Ctrl-C
// interrupts the run as it would in cooked mode), else a line.
func (f *Factory) readAnswer() string {
	fd := f.IO.StdinFd()
	if !f.IO.IsStdinTTY() || fd < 0 {
		return readLine(f.IO.In)
	}
	state, err := term.MakeRaw(fd)
	if err != nil {
		return readLine(f.IO.In)
	}
	b := make([]byte, 1)
	n, _ := f.IO.In.Read(b)
	_ = term.Restore(fd, state)
	if n == 1 && (b[0] == 3 || b[0] == 4) { // Ctrl-C, Ctrl-D
		_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
		return interruptAnswer
	}
	return string(b[:n])
}

// interruptAnswer is readAnswer's answer to Ctrl-C: none.
const interruptAnswer = "\x03"

// trustedChange is called after clawdcode itself changed the project file
// (an "always in this project" rule): a file that was trusted, or asked
// for nothing needing trust, stays trusted with its new content, so the
// user's own answer does not bring the question back at the next start.
func (f *Factory) trustedChange(projectFile string) {
	if f.projectDistrusted.Load() {
		return
	}
	home, err := f.HomeDir()
	if err != nil {
		return
	}
	file, err := config.ReadFile(projectFile, nil)
	if err != nil || file == nil {
		return
	}
	f.rememberTrust(filepath.Join(home, trustFileName), file.Path, file.SHA256, true)
}

// rememberTrust records the answer about projectFile's content sum in the
// trust file at path, written atomically.
// The question may be the first thing a fresh CLAWDCODE_HOME is needed
// for, so the home is made here if it is missing.
func (f *Factory) rememberTrust(path, projectFile, sum string, trusted bool) {
	recs := readTrust(path, func(string) {}) // decideTrust has said it is unreadable
	if recs.Projects == nil {
		recs.Projects = map[string]trustRecord{}
	}
	recs.Projects[projectFile] = trustRecord{SHA256: sum, Trusted: trusted}
	data, err := json.MarshalIndent(recs, "", "  ")
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o700)
	}
	if err == nil {
		err = storage.WriteFileAtomic(path, append(data, '\n'))
	}
	if err != nil {
		warnTo(f.IO.ErrOut)(fmt.Sprintf("the answer about %s could not be remembered (it will be asked again): %v", projectFile, err))
	}
}

// readTrust reads trusted-projects.json; a missing file knows no project,
// a damaged one is said and treated as missing (every file is asked about).
func readTrust(path string, warn func(string)) trustRecords {
	var recs trustRecords
	data, err := storage.ReadRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return recs
	}
	if err == nil {
		err = json.Unmarshal(data, &recs)
	}
	if err != nil {
		warn(fmt.Sprintf("%s is unreadable, so project files are asked about again: %v", path, err))
		return trustRecords{}
	}
	return recs
}

// readLine reads up to a newline a byte at a time, so that nothing after
// it is taken from what the REPL reads next.
func readLine(r io.Reader) string {
	var line []byte
	b := make([]byte, 1)
	for len(line) < 256 {
		n, err := r.Read(b)
		if n == 1 {
			if b[0] == '\n' || b[0] == '\r' {
				break
			}
			line = append(line, b[0])
		}
		if err != nil {
			break
		}
	}
	return string(line)
}

func yes(answer string) bool {
	a := strings.ToLower(strings.TrimSpace(answer))
	return a == "y" || a == "yes"
}

// trustCheck is /doctor's line about the project's trust: whether the
// project file's keys that need trust are in force, and how to trust it
// when they are not.
func (f *Factory) trustCheck(cfg *config.Config, root string) agent.Check {
	file := config.ProjectFile(root)
	switch {
	case len(cfg.Distrusted) > 0:
		return agent.Check{Text: fmt.Sprintf("%s is not trusted: its %s are ignored", file, strings.Join(cfg.Distrusted, ", ")),
			Hint: "--trust-project trusts it for a run; the REPL asks at its start"}
	case cfg.ProjectAsks && f.projectDistrusted.Load():
		return agent.Check{OK: true, Text: fmt.Sprintf("%s is trusted for this run (--trust-project)", file)}
	case cfg.ProjectAsks:
		return agent.Check{OK: true, Text: fmt.Sprintf("%s is trusted (its hooks, servers and rules apply)", file)}
	}
	return agent.Check{OK: true, Text: "the project's settings need no trust"}
}
