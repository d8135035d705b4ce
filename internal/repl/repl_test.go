package repl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/tools"
)

type runResult struct {
	err         error
	out, errOut string
	engine      *fakeEngine
	commands    *fakeCommands
}

func runPiped(t *testing.T, input string, opts Options) runResult {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(input)
	eng, cmds := &fakeEngine{}, &fakeCommands{}
	opts.IO, opts.Turns, opts.Parts, opts.Commands = ios, eng, fakeParts(), cmds
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit) // a safety net
	defer cancel()
	err := Run(ctx, opts)
	return runResult{err: err, out: out.String(), errOut: errOut.String(), engine: eng, commands: cmds}
}

func TestRunPiped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		input, first  string
		wantSubmitted []string
		wantCommands  []string
		wantOut       string // exact stdout
		wantErrOut    []string
	}{
		{
			name:          "prompts then end of input",
			input:         "hello\n\n   \nsecond one\n",
			wantSubmitted: []string{"hello", "second one"},
			wantOut:       "you said: hello\nyou said: second one\n",
		},
		{
			name:          "last line without newline still counts",
			input:         "hello",
			wantSubmitted: []string{"hello"},
			wantOut:       "you said: hello\n",
		},
		{
			name:          "first prompt goes before the input",
			first:         "from argv",
			input:         "typed\n",
			wantSubmitted: []string{"from argv", "typed"},
			wantOut:       "you said: from argv\nyou said: typed\n",
		},
		{
			name:          "backslash continues a line",
			input:         "line one \\\nline two\n",
			wantSubmitted: []string{"line one \nline two"},
		},
		{
			name:          "slash commands go to the registry, /exit leaves",
			input:         "/help\nhi\n/exit\nnever sent\n",
			wantSubmitted: []string{"hi"},
			wantCommands:  []string{"/help", "/exit"},
			wantOut:       "commands: /help /exit /resume /wait\nyou said: hi\n",
		},
		{
			name:         "/exit as the first prompt",
			first:        "/exit",
			input:        "never sent\n",
			wantCommands: []string{"/exit"},
		},
		{
			name:          "a failing command or turn does not end the REPL",
			input:         "/nope\nfail now\nafter\n",
			wantSubmitted: []string{"fail now", "after"},
			wantCommands:  []string{"/nope"},
			wantErrOut:    []string{"error: unknown command /nope (see /help)", "error: server said no"},
		},
		{
			name:         "no picker when not interactive",
			input:        "/resume\n",
			wantCommands: []string{"/resume"},
			wantOut:      "not interactive\n",
		},
		{
			name:          "tool activity",
			input:         "tool use\n",
			wantSubmitted: []string{"tool use"},
			wantOut:       "read it\n",
			wantErrOut:    []string{"⏺ Read(internal/x.go)\n  ⎿  Read 3 lines\n", "⏺ Read(missing.go)\n  ⎿  file not found: missing.go\n"},
		},
		{
			name:       "context notices go to stderr",
			input:      "compact now\n",
			wantOut:    "still here\n",
			wantErrOut: []string{"✻ compacting the conversation…\n", "⚠ the summary failed\n"},
		},
		{
			name:    "markdown untouched when not a terminal",
			input:   "md\n",
			wantOut: "# Title\nuse `go test`\n```go\nfunc x() {}\n```\n- a **b**\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runPiped(t, tt.input, Options{FirstPrompt: tt.first})
			if r.err != nil {
				t.Fatalf("Run: %v", r.err)
			}
			if tt.wantSubmitted != nil && !slices.Equal(r.engine.Submitted(), tt.wantSubmitted) {
				t.Errorf("submitted %q, want %q", r.engine.Submitted(), tt.wantSubmitted)
			}
			if !slices.Equal(r.commands.Ran(), tt.wantCommands) {
				t.Errorf("commands %q, want %q", r.commands.Ran(), tt.wantCommands)
			}
			if tt.wantOut != "" && r.out != tt.wantOut {
				t.Errorf("stdout %q, want %q", r.out, tt.wantOut)
			}
			for _, w := range tt.wantErrOut {
				if !strings.Contains(r.errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.errOut)
				}
			}
			if strings.Contains(r.out+r.errOut, "\x1b[") {
				t.Errorf("escape sequences on a non-terminal:\n%q\n%q", r.out, r.errOut)
			}
		})
	}
}

func TestRunWelcome(t *testing.T) {
	t.Parallel()
	r := runPiped(t, "", Options{})
	if first, _, _ := strings.Cut(r.errOut, "\n"); first != "clawdcode · fake-model · new session · /proj" {
		t.Fatalf("welcome line %q", first)
	}
}

func TestRunCancelledContext(t *testing.T) {
	t.Parallel()
	ios, in, _, _ := iostreams.Test()
	in.WriteString("hello\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Run(ctx, Options{IO: ios, Turns: &fakeEngine{}, Parts: fakeParts(), Commands: &fakeCommands{}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
}

func TestRunRequiresParts(t *testing.T) {
	t.Parallel()
	ios, _, _, _ := iostreams.Test()
	if err := Run(context.Background(), Options{IO: ios}); err == nil {
		t.Fatal("Run without an engine succeeded")
	}
}

// A SIGINT during a turn cancels that turn only: "interrupted", and the
// REPL reads on. Not parallel: every Run in the process would see the signal.
func TestRunInterruptedTurn(t *testing.T) {
	ios, in, _, errOut := iostreams.Test()
	in.WriteString("slow please\nafter\n")
	eng := &cancellingEngine{fakeEngine: &fakeEngine{}}
	if err := Run(context.Background(), Options{IO: ios, Turns: eng, Parts: fakeParts(), Commands: &fakeCommands{}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "interrupted") {
		t.Fatalf("no interrupted notice:\n%s", errOut)
	}
	if got := eng.Submitted(); !slices.Equal(got, []string{"slow please", "after"}) {
		t.Fatalf("submitted %q", got)
	}
}

// cancellingEngine sends the process the SIGINT a Ctrl-C would, while a
// slow turn waits.
type cancellingEngine struct{ *fakeEngine }

func (e *cancellingEngine) Submit(ctx context.Context, text string, sink agent.Sink) (*agent.TurnResult, error) {
	if strings.HasPrefix(text, "slow") {
		go func() {
			time.Sleep(20 * time.Millisecond)
			p, _ := os.FindProcess(os.Getpid())
			p.Signal(os.Interrupt)
		}()
	}
	return e.fakeEngine.Submit(ctx, text, sink)
}

func TestToolSummaries(t *testing.T) {
	t.Parallel()
	args := []struct {
		name, input, want string
	}{
		{"Read", `{"file_path":"/proj/a/b.go"}`, "a/b.go"},
		{"Read", `{"file_path":"/elsewhere/b.go"}`, "/elsewhere/b.go"},
		{"Bash", `{"command":"go test ./...\necho done"}`, "go test ./... …"},
		{"Grep", `{"pattern":"func main","path":"/proj/cmd"}`, "func main in cmd"},
		{"Glob", `{"pattern":"**/*.go"}`, "**/*.go"},
		{"Bash", `{"command":"npm run dev","run_in_background":true}`, "npm run dev (in the background)"},
		{"BashOutput", `{"bash_id":"bash_2"}`, "bash_2"},
		{"KillShell", `{"shell_id":"bash_2"}`, "bash_2"},
		{"WebFetch", `{"url":"https://go.dev/doc","prompt":"x"}`, "https://go.dev/doc"},
		{"Other", `{"b":1,"a":"x"}`, `{"a":"x","b":1}`},
		{"Read", `not json`, "not json"},
	}
	for _, a := range args {
		if got := toolArgument(a.name, json.RawMessage(a.input), "/proj"); got != a.want {
			t.Errorf("toolArgument(%s, %s) = %q, want %q", a.name, a.input, got, a.want)
		}
	}
	results := []struct {
		name string
		res  tools.Result
		want string
	}{
		{"Read", tools.Result{Output: "1\n2\n"}, "Read 2 lines"},
		{"Glob", tools.Result{Output: "a.go\n"}, "Found 1 file|a.go"},
		{"Bash", tools.Result{Output: "ok\n"}, "ok"},
		{"Bash", tools.Result{Output: "a\nb\nc"}, "a|b|c"},
		{"Bash", tools.Result{}, "(no output)"},
		// A failure leads, with the output's last line: the collapsed view
		// must not look like success (issue 25).
		{"Bash", tools.Result{Output: "out\nboom: failed\n\n", Error: "exit status 2"}, "exit 2 · boom: failed|out|boom: failed"},
		{"Bash", tools.Result{Error: "exit status 1"}, "exit 1"},
		{"Bash", tools.Result{Output: "(no output)", Error: "command timed out after 2s"}, "command timed out after 2s"},
		{"Edit", tools.Result{Error: "old_string not found\nmore"}, "old_string not found …"},
	}
	for _, r := range results {
		head, body := resultLines(r.name, r.res, colorScheme{}, nil, "", 0)
		if got := strings.Join(append([]string{head}, body...), "|"); got != r.want {
			t.Errorf("resultLines(%s, %+v) = %q, want %q", r.name, r.res, got, r.want)
		}
	}
}

// On a terminal the turn's text is rendered and the spinner shows while
// waiting; it must be gone (line erased) before any text is written.
func TestTurnOutputOnTerminal(t *testing.T) {
	t.Parallel()
	ios, _, out, _ := iostreams.Test()
	errOut := &lockedBuffer{}
	ios.ErrOut = errOut
	ios.SetTTY(true, true, true)
	done := make(chan struct{})
	defer close(done)
	o := newTurnOutput(ios, "/proj", done, nil)
	o.spin.interval = time.Millisecond
	o.waiting("thinking")
	deadline := time.Now().Add(waitLimit)
	for !strings.Contains(errOut.String(), "thinking…") {
		if time.Now().After(deadline) {
			t.Fatal("spinner never drew")
		}
		time.Sleep(time.Millisecond)
	}
	o.Text("**h")
	if !o.spin.running() {
		t.Fatal("spinner stopped before any text was shown")
	}
	o.Text("i**\n")
	if o.spin.running() {
		t.Fatal("spinner still running over the text")
	}
	o.finish()
	if got := plainStyles.Replace(out.String()); got != "<b>hi</>\n" {
		t.Fatalf("stdout %q", got)
	}
	if !strings.HasSuffix(errOut.String(), "\r\x1b[2K") {
		t.Fatalf("spinner line not erased: %q", errOut.String())
	}
}

// lockedBuffer is a bytes.Buffer the spinner goroutine may write to.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestHistoryFile(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "home")
	path := filepath.Join(dir, "history")
	h, err := openHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{"one", "two\nlines", "  ", "three", `"quoted"`} {
		if err := h.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	h.Close()
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
	h, err = openHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	got, err := h.Entries()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"one", "two\nlines", "three", `"quoted"`}; !slices.Equal(got, want) {
		t.Fatalf("entries %q, want %q", got, want)
	}
	// A file written before entries kept their newlines reads as it is.
	if err := os.WriteFile(path, []byte("plain\n\"not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h2, err := openHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	if got, err = h2.Entries(); err != nil || !slices.Equal(got, []string{"plain", `"not json`}) {
		t.Fatalf("old file: entries %q, %v", got, err)
	}
}

func TestHistoryTrim(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "history")
	var b strings.Builder
	for i := range historyTrim + 10 {
		b.WriteString(strings.Repeat("x", i%7+1) + "\n")
	}
	b.WriteString("newest\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := openHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	got, err := h.Entries()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != historyKeep || got[len(got)-1] != "newest" {
		t.Fatalf("kept %d entries ending %q", len(got), got[len(got)-1])
	}
	if err := h.Add("after trim"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != historyKeep+1 || !strings.HasSuffix(string(data), "newest\nafter trim\n") {
		t.Fatalf("file has %d lines, ends %q", n, data[len(data)-20:])
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("trimmed file mode %v", fi.Mode().Perm())
	}
}
