//go:build unix

package repl

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// Acceptance tests of issue 9, "The interactive session": each drives the
// real binary in tmux (a real terminal emulator) against llmtest and
// asserts what the user sees on the screen, for one bullet of "What was
// seen". Each fails on main as it was before the fix (193c2fd).

func lastUser(t *testing.T, srv *llmtest.Server) string {
	t.Helper()
	msgs := srv.LastRequest().Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Content
		}
	}
	t.Fatalf("no user message in %+v", msgs)
	return ""
}

// Paste: pasting 4 lines sent 3 separate messages; only \+Enter made a
// newline, Alt-Enter and Ctrl-J submitted.
func TestScreenPasteIsOneMessage(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("got the paste"), llmtest.Text("got the long one"))
	s := startScreen(t, srv, 100, 30)
	s.waitPrompt()
	s.paste("line one\nline two\nline three\nline four")
	s.waitFor("line four")
	s.sendKeys("Enter")
	s.waitFor("got the paste")
	s.waitPrompt()
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("a 4-line paste made %d requests", n)
	}
	if got := lastUser(t, srv); got != "line one\nline two\nline three\nline four" {
		t.Fatalf("sent %q", got)
	}
	// A long paste is one chip in the entry and goes out whole.
	var long []string
	for i := 1; i <= 40; i++ {
		long = append(long, fmt.Sprintf("pasted row %d", i))
	}
	s.keys("look: ")
	s.paste(strings.Join(long, "\n"))
	s.waitFor("look: [pasted 40 lines]")
	s.sendKeys("Enter")
	s.waitFor("got the long one")
	if got := lastUser(t, srv); got != "look: "+strings.Join(long, "\n") {
		t.Fatalf("sent %q", got)
	}
	if scr := s.screen(); strings.Contains(scr, "pasted row 20") {
		t.Fatalf("the long paste was not collapsed:\n%s", scr)
	}
}

func TestScreenNewlineKeys(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("three lines"))
	s := startScreen(t, srv, 100, 30)
	s.waitPrompt()
	s.keys("first")
	s.sendKeys("C-j")
	s.keys("second")
	s.sendKeys("M-Enter")
	s.keys("third")
	s.waitFor("third")
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("Ctrl-J or Alt-Enter submitted: %d requests", n)
	}
	s.sendKeys("Enter")
	s.waitFor("three lines")
	if got := lastUser(t, srv); got != "first\nsecond\nthird" {
		t.Fatalf("sent %q", got)
	}
}

// Tool output hidden: Bash with more than one line showed only "⎿ 43
// lines"; a failing command only "exit status 2"; nothing expanded it.
func TestScreenToolOutputVisible(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(
		llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"for i in $(seq 1 43); do echo row$i; done"}`)),
		llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"echo to-stdout; echo boom-on-stderr >&2; exit 2"}`)),
		llmtest.Text("both ran"),
	)
	s := startScreen(t, srv, 100, 40, "--dangerously-skip-permissions")
	s.waitPrompt()
	s.keys("run them")
	s.sendKeys("Enter")
	scr := s.waitFor("both ran")
	// The exit status leads the failed call's output (issue 25).
	for _, want := range []string{"row1", "row5", "+38 lines (ctrl+o to expand)", "to-stdout", "exit 2 · boom-on-stderr"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("screen lacks %q:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "row6") {
		t.Fatalf("more than the first lines shown before expanding:\n%s", scr)
	}
	s.waitPrompt()
	s.keys("/expand")
	s.sendKeys("Enter")
	s.waitFor("full output of Bash")
	// Ctrl-O at the prompt does the same.
	s.sendKeys("C-o")
	scr = s.waitFor("end of Bash")
	if !strings.Contains(scr, "boom-on-stderr") {
		t.Fatalf("/expand did not show the last output:\n%s", scr)
	}
}

// Edits invisible: an auto-approved Edit showed "⎿ 8 lines", never the
// diff; an overwrite showed the whole new file; the permission preview
// stopped at 8 lines with no way to see the rest.
func TestScreenAutoApprovedEditShowsDiff(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, fmt.Sprintf("line %02d", i))
	}
	rewritten := strings.Replace(strings.Join(lines, "\n")+"\n", "line 25", "line twenty-five", 1)
	write, _ := json.Marshal(map[string]string{"file_path": "notes.txt", "content": rewritten})
	srv.Enqueue(
		llmtest.ToolCalls(llmtest.Call("Read", `{"file_path":"notes.txt"}`)), // an Edit needs a Read first
		llmtest.ToolCalls(llmtest.Call("Edit", `{"file_path":"notes.txt","old_string":"line 12","new_string":"line twelve"}`)),
		llmtest.ToolCalls(llmtest.Call("Write", string(write))),
		llmtest.Text("edited"),
	)
	s := startScreen(t, srv, 100, 60, "--dangerously-skip-permissions")
	if err := os.WriteFile(filepath.Join(s.dir, "notes.txt"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.waitPrompt()
	s.keys("edit it")
	s.sendKeys("Enter")
	scr := s.waitFor("edited")
	for _, want := range []string{"⏺ Edit(notes.txt)", "12 - line 12", "12 + line twelve", "11   line 11",
		"⏺ Write(notes.txt)", "25 - line 25", "25 + line twenty-five"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("screen lacks %q:\n%s", want, scr)
		}
	}
	// The overwrite shows a diff, not the whole file: line 01 is far from the change.
	if i := strings.Index(scr, "⏺ Write(notes.txt)"); strings.Contains(scr[i:], "line 01") {
		t.Fatalf("the overwrite shows the whole file:\n%s", scr[i:])
	}
}

func TestScreenPermissionPreviewShowsAll(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, fmt.Sprintf("new row %02d", i))
	}
	write, _ := json.Marshal(map[string]string{"file_path": "big.txt", "content": strings.Join(lines, "\n") + "\n"})
	srv.Enqueue(llmtest.ToolCalls(llmtest.Call("Write", string(write))), llmtest.Text("written"))
	s := startScreen(t, srv, 100, 80)
	s.waitPrompt()
	s.keys("write big")
	s.sendKeys("Enter")
	scr := s.waitFor("v: view all")
	if strings.Contains(scr, "new row 30") {
		t.Fatalf("the preview was not cut:\n%s", scr)
	}
	s.keys("v")
	s.waitFor("30 + new row 30")
	s.keys("y")
	s.waitFor("written")
}

// Interrupted turns merged: after Ctrl-C the next request's user message
// was the cancelled prompt and the new one glued together. Esc
// interrupts like Ctrl-C.
func TestScreenEscInterruptsAndTheTurnIsKept(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{RejectConsecutiveUser: true})
	// Pieces are words: after the role chunk and four words, the stream stops.
	srv.Enqueue(llmtest.Reply{Text: "a partial answer that goes on and on and on", Resume: make(chan struct{}), PauseAfter: 6},
		llmtest.Text("fresh answer"))
	s := startScreen(t, srv, 100, 30)
	s.waitPrompt()
	s.keys("first question")
	s.sendKeys("Enter")
	s.waitFor("a partial answer")
	s.sendKeys("Escape")
	s.waitFor("interrupted")
	s.waitPrompt()
	s.keys("second question")
	s.sendKeys("Enter")
	s.waitFor("fresh answer")
	msgs := srv.LastRequest().Messages
	n := len(msgs)
	if msgs[n-1].Content != "second question" || msgs[n-2].Role != "assistant" ||
		!strings.HasPrefix(msgs[n-2].Content, "a partial answer") || !strings.Contains(msgs[n-2].Content, "interrupted") ||
		msgs[n-3].Content != "first question" {
		t.Fatalf("messages sent after the interruption: %+v", msgs)
	}
}

// No indicator when permissions are bypassed.
func TestScreenSkipPermissionsIndicator(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	s := startScreen(t, srv, 100, 20, "--dangerously-skip-permissions")
	scr := s.waitPrompt()
	if !strings.Contains(scr, "⏵⏵ permissions skipped") {
		t.Fatalf("no indicator:\n%s", scr)
	}
}

// No warning for a path outside the project.
func TestScreenWarnsOutsideTheProject(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	outside := filepath.Join(t.TempDir(), "elsewhere.txt")
	write, _ := json.Marshal(map[string]string{"file_path": outside, "content": "x\n"})
	srv.Enqueue(llmtest.ToolCalls(llmtest.Call("Write", string(write))), llmtest.Text("done"))
	s := startScreen(t, srv, 160, 30)
	s.waitPrompt()
	s.keys("write outside")
	s.sendKeys("Enter")
	s.waitFor("is outside the project")
	s.sendKeys("Escape")
	s.waitFor("done")
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("the denied write happened")
	}
}

// "Always" for one Bash command allowed every Bash command, and nothing
// said so. The dialog names the rule it adds.
func TestScreenAlwaysNamesItsRule(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(
		llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"git status"}`)),
		llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"touch DANGER"}`)),
		llmtest.Text("done"),
	)
	s := startScreen(t, srv, 120, 40)
	s.waitPrompt()
	s.keys("go")
	s.sendKeys("Enter")
	s.waitFor("Yes, and allow Bash(git status:*) for this session")
	s.keys("a")
	s.waitFor("touch DANGER")
	s.waitFor("❯ 1. Yes") // asked again: the rule covers git status only
	s.sendKeys("Escape")
	s.waitFor("done")
	if _, err := os.Stat(filepath.Join(s.dir, "DANGER")); err == nil {
		t.Fatal("touch DANGER ran unasked")
	}
}

// Resume shows nothing: -c, -r, /switch and /resume printed only
// "session bd9ab39b"; exit printed no way back.
func TestScreenResumeReplays(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(
		llmtest.ToolCalls(llmtest.Call("Bash", `{"command":"echo from-the-tool"}`)),
		llmtest.Text("the first answer"),
	)
	s := startScreen(t, srv, 100, 40, "--dangerously-skip-permissions")
	s.waitPrompt()
	s.keys("the first question")
	s.sendKeys("Enter")
	s.waitFor("the first answer")
	s.waitPrompt()
	s.sendKeys("C-d")
	scr := s.waitFor("[exited 0]")
	m := regexp.MustCompile(`clawdcode -r ([0-9a-f-]{36})`).FindStringSubmatch(scr)
	if m == nil {
		t.Fatalf("exit prints no way back:\n%s", scr)
	}
	for _, args := range [][]string{{"-c"}, {"-r", m[1]}} {
		s = s.again(100, 40, args...)
		scr = s.waitPrompt()
		for _, want := range []string{"> the first question", "⏺ Bash(echo from-the-tool)", "from-the-tool", "the first answer"} {
			if !strings.Contains(scr, want) {
				t.Fatalf("%v does not replay %q:\n%s", args, want, scr)
			}
		}
	}
	// /resume picks with the arrow keys and shows relative times.
	s = s.again(100, 40)
	s.waitPrompt()
	s.keys("/resume")
	s.sendKeys("Enter")
	s.waitFor("just now")
	s.sendKeys("Enter")
	scr = s.waitPrompt()
	if strings.Count(scr, "> the first question") != 1 || !strings.Contains(scr, "the first answer") {
		t.Fatalf("/resume does not replay:\n%s", scr)
	}
}

// Display: prose wrapped mid-word.
func TestScreenProseWrapsAtWords(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	words := strings.Fields(strings.Repeat("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima ", 6))
	srv.Enqueue(llmtest.Text(strings.Join(words, " ") + " END"))
	s := startScreen(t, srv, 37, 40)
	s.waitPrompt()
	s.keys("talk")
	s.sendKeys("Enter")
	s.waitFor("END")
	valid := map[string]bool{"END": true}
	for _, w := range words {
		valid[w] = true
	}
	rows := strings.Split(s.visible(), "\n")
	seen := 0
	for _, row := range rows {
		fs := strings.Fields(row)
		if len(fs) == 0 || !valid[fs[0]] {
			continue
		}
		for _, f := range fs {
			if !valid[f] {
				t.Fatalf("a word is cut at the edge: %q in row %q\n%s", f, row, s.visible())
			}
		}
		seen++
	}
	if seen < 5 {
		t.Fatalf("the answer is not on the screen:\n%s", s.visible())
	}
}

// Display: a long paragraph showed nothing for 12 s, then all at once.
func TestScreenStreamsBeforeTheLineEnds(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Reply{Text: "The first words arrive now and the rest of this paragraph comes much later on the same line.",
		Resume: make(chan struct{}), PauseAfter: 6}) // never resumed: the line stays open
	s := startScreen(t, srv, 100, 30)
	s.waitPrompt()
	s.keys("talk")
	s.sendKeys("Enter")
	s.waitFor("The first words") // while the line is still open
}

// Display: tables stayed raw pipes.
func TestScreenTable(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("| name | size |\n|---|---:|\n| alpha | 1 |\n| beta | 2000 |\n\nafter the table"))
	s := startScreen(t, srv, 100, 30)
	s.waitPrompt()
	s.keys("table")
	s.sendKeys("Enter")
	scr := s.waitFor("after the table")
	if strings.Contains(scr, "|---|") || strings.Contains(scr, "| alpha |") {
		t.Fatalf("raw pipes:\n%s", scr)
	}
	for _, want := range []string{"┌───────┬──────┐", "│ name  │ size │", "│ alpha │    1 │", "│ beta  │ 2000 │"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("screen lacks %q:\n%s", want, scr)
		}
	}
}

// Display: at ≤ 40 columns every spinner frame left a new line.
func TestScreenNarrowSpinner(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Hang())
	s := startScreen(t, srv, 24, 20)
	s.waitPrompt()
	s.keys("hi")
	s.sendKeys("Enter")
	s.waitFor("thinking")
	// Frames are counted, not waited for: every screen until five
	// glyphs of the spinner have shown holds one spinner row.
	seen := map[string]bool{}
	for deadline := time.Now().Add(waitLimit); len(seen) < 5; time.Sleep(20 * time.Millisecond) {
		scr := s.screen()
		if n := strings.Count(scr, "thinking"); n != 1 {
			t.Fatalf("%d spinner rows on the screen:\n%s", n, scr)
		}
		for _, g := range spinnerFrames {
			if strings.Contains(scr, g) {
				seen[g] = true
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the spinner showed %d frames in %v:\n%s", len(seen), waitLimit, scr)
		}
	}
}

// Display: text typed during a turn landed on the spinner line (issue 9);
// then it was invisible until sent (issue 25 item 3). Now it is shown on a
// dim "queued: …" line under the spinner, updated as keys arrive, and it is
// the entry at the next prompt, still editable.
func TestScreenTypeAheadShownUnderTheTurn(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	resume := make(chan struct{})
	// Paused after the opening chunk, before any text: the spinner shows.
	srv.Enqueue(llmtest.Reply{Text: "slow answer starts here and then it is done", Resume: resume, PauseAfter: 1},
		llmtest.Text("second answer"))
	s := startScreen(t, srv, 100, 30)
	s.waitPrompt()
	s.keys("first")
	s.sendKeys("Enter")
	s.waitFor("thinking")
	s.keys("typed ahead")
	s.waitFor("queued: typed ahead")
	s.sendKeys("BSpace", "BSpace", "BSpace", "BSpace", "BSpace")
	s.keys("behind")
	scr := s.waitFor("queued: typed behind")
	t.Logf("during the turn:\n%s", scr)
	if rows := strings.Split(s.visible(), "\n"); !strings.Contains(strings.Join(rows[len(rows)-2:], "\n"), "thinking") {
		t.Fatalf("the queued line is not under the spinner:\n%s", s.visible())
	}
	close(resume)
	s.waitFor("it is done")
	s.waitFor("> typed behind")
	if scr := s.waitPrompt(); strings.Contains(scr, "queued:") {
		t.Fatalf("the queued line stayed after the turn:\n%s", scr)
	}
	s.sendKeys("BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace")
	s.keys("again")
	s.sendKeys("Enter")
	s.waitFor("second answer")
	if got := lastUser(t, srv); got != "typed again" {
		t.Fatalf("sent %q, want the entry as edited at the prompt", got)
	}
}

// Display: the code-block gutter was copied with the code.
func TestScreenCodeBlockCopiesClean(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("```go\nfunc main() {\n\tprintln(\"hi\")\n}\n```\nafter"))
	s := startScreen(t, srv, 100, 30)
	s.waitPrompt()
	s.keys("code")
	s.sendKeys("Enter")
	s.waitFor("after")
	rows := strings.Split(s.screen(), "\n")
	found := false
	for _, r := range rows {
		if strings.Contains(r, "func main() {") {
			found = true
			if r != "func main() {" {
				t.Fatalf("the code row carries more than the code: %q", r)
			}
		}
	}
	if !found {
		t.Fatalf("no code on the screen:\n%s", s.screen())
	}
}

// Small gaps: retries after rate limits were silent.
func TestScreenRetryNotice(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.RateLimited(time.Second), llmtest.Text("made it"))
	s := startScreen(t, srv, 100, 30)
	s.waitPrompt()
	s.keys("hi")
	s.sendKeys("Enter")
	s.waitFor("rate limited, retrying in 1 s (2/4)")
	s.waitFor("made it")
}

// Small gaps: a prompt given on the command line was not echoed.
func TestScreenFirstPromptEchoed(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("answered"))
	s := startScreen(t, srv, 100, 30, "hello from the command line")
	scr := s.waitFor("answered")
	if !strings.Contains(scr, "> hello from the command line\n") {
		t.Fatalf("the prompt is not shown:\n%s", scr)
	}
}

// Small gaps: /cost had no money figure; /model offered no list.
func TestScreenCostAndModels(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{FamilyModel: "served-model-a"})
	srv.Enqueue(llmtest.Text("hi"))
	s := startScreen(t, srv, 120, 30)
	s.waitPrompt()
	s.keys("hello")
	s.sendKeys("Enter")
	s.waitFor("hi")
	s.waitPrompt()
	s.keys("/cost")
	s.sendKeys("Enter")
	s.waitFor("Estimated cost: $")
	s.waitPrompt()
	s.keys("/model")
	s.sendKeys("Enter")
	s.waitFor("served-model-a")
	s.sendKeys("Enter")
	s.waitFor("Model set to served-model-a")
}

// Output is wrapped at the width of the moment: after a resize, what
// streams next is wrapped at the new width, at word boundaries.
func TestScreenRewrapsAfterResize(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	words := strings.Fields(strings.Repeat("alpha bravo charlie delta echo foxtrot golf hotel ", 8))
	resume := make(chan struct{})
	srv.Enqueue(llmtest.Reply{Text: "BEFORE " + strings.Join(words, " ") + " END", Resume: resume, PauseAfter: 3})
	s := startScreen(t, srv, 100, 50)
	s.waitPrompt()
	s.keys("talk")
	s.sendKeys("Enter")
	s.waitFor("BEFORE")
	s.resize(30, 50)
	close(resume)
	s.waitFor("END")
	valid := map[string]bool{"END": true, "BEFORE": true}
	for _, w := range words {
		valid[w] = true
	}
	after := false
	for _, row := range strings.Split(s.visible(), "\n") {
		fs := strings.Fields(row)
		if len(fs) == 0 || !valid[fs[0]] {
			continue
		}
		for _, f := range fs {
			if !valid[f] {
				t.Fatalf("a word is cut: %q in %q\n%s", f, row, s.visible())
			}
		}
		if len([]rune(row)) > 30 {
			t.Fatalf("a row is wider than the resized terminal: %q\n%s", row, s.visible())
		}
		after = true
	}
	if !after {
		t.Fatalf("no answer rows:\n%s", s.visible())
	}
}

// /resume had no search: typing filters on titles and on content (through
// clawdcode search's index).
func TestScreenResumeFiltersOnContent(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("nothing special"), llmtest.Text("the answer mentions zanzibar"))
	s := startScreen(t, srv, 100, 40)
	s.waitPrompt()
	s.keys("first topic")
	s.sendKeys("Enter")
	s.waitFor("nothing special")
	s.waitPrompt()
	s.keys("/new")
	s.sendKeys("Enter")
	s.waitPrompt()
	s.keys("second topic")
	s.sendKeys("Enter")
	s.waitFor("mentions zanzibar")
	s.waitPrompt()
	s.keys("/new")
	s.sendKeys("Enter")
	s.waitPrompt()
	s.keys("/resume")
	s.sendKeys("Enter")
	// The picker's own footer, not "first topic", which the screen already
	// shows: keys typed before the picker opens are type-ahead for the
	// prompt, not its filter.
	s.waitFor("type to filter")
	s.keys("zanzibar")
	deadline := time.Now().Add(waitLimit)
	for {
		scr := s.visible()
		i := strings.LastIndex(scr, "filter: zanzibar")
		if i >= 0 && strings.Contains(scr[i:], "second topic") && !strings.Contains(scr[i:], "first topic") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the filter does not find the session by its content:\n%s", scr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.sendKeys("Enter")
	s.waitFor("Switched to session")
}

// !command runs in the project and its output goes with the next message;
// @path completes on Tab and attaches the file's content.
func TestScreenBangAndAttach(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("seen both"))
	s := startScreen(t, srv, 100, 40)
	if err := os.MkdirAll(filepath.Join(s.dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.dir, "docs", "design-notes.md"), []byte("the secret word is marmalade\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.waitPrompt()
	s.keys("!echo shell-said-hello")
	s.sendKeys("Enter")
	s.waitFor("shell-said-hello")
	s.waitPrompt()
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("!command reached the model: %d requests", n)
	}
	s.keys("read @docs/des")
	s.sendKeys("Tab")
	s.waitFor("read @docs/design-notes.md")
	s.keys("please")
	s.sendKeys("Enter")
	s.waitFor("seen both")
	got := lastUser(t, srv)
	for _, want := range []string{"$ echo shell-said-hello\nshell-said-hello", "read @docs/design-notes.md please",
		"<file path=\"docs/design-notes.md\">\nthe secret word is marmalade\n</file>"} {
		if !strings.Contains(got, want) {
			t.Fatalf("the message lacks %q:\n%s", want, got)
		}
	}
}

// The "always" option lists every rule it would add, wrapped, never cut:
// a long command cannot hide a rule (Bash(touch:*)) behind an ellipsis.
func TestScreenAlwaysShowsEveryRuleOfALongCommand(t *testing.T) {
	t.Parallel()
	long := "echo " + strings.Repeat("harmless-looking-", 12) + "words; touch TAILHIDDEN"
	args, _ := json.Marshal(map[string]string{"command": long})
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.ToolCalls(llmtest.Call("Bash", string(args))), llmtest.Text("done"))
	s := startScreen(t, srv, 80, 40)
	s.waitPrompt()
	s.keys("go")
	s.sendKeys("Enter")
	scr := s.waitFor("4. No")
	if !strings.Contains(scr, "Bash(touch:*)") {
		t.Fatalf("the always option hides a rule it would add:\n%s", scr)
	}
	s.sendKeys("Escape")
	s.waitFor("done")
}

// What a slash command prints in the REPL passes through the same
// redactor as the session file: a server error quoting the API key, shown
// by /compact, does not put the key on the screen.
func TestScreenSlashOutputIsRedacted(t *testing.T) {
	t.Parallel()
	const key = "sk-screen-SECRET-4711"
	srv := llmtest.NewServer(t, llmtest.Options{})
	for _, q := range []string{"one", "two", "three"} {
		srv.Enqueue(llmtest.Text("answer " + q))
	}
	srv.SetResponder(func(llmtest.Request) llmtest.Reply {
		return llmtest.Error(400, "Incorrect API key provided: "+key+".", "invalid_request_error", "invalid_api_key")
	})
	s := startScreen(t, srv, 120, 40)
	s.waitPrompt()
	s.sendKeys("C-d")
	s.waitFor("[exited")
	s.env = append(s.env, "OPENAI_API_KEY="+key)
	s = s.again(120, 40)
	s.waitPrompt()
	for _, q := range []string{"one", "two", "three"} {
		s.keys(q)
		s.sendKeys("Enter")
		s.waitFor("answer " + q)
		s.waitPrompt()
	}
	s.keys("/compact")
	s.sendKeys("Enter")
	scr := s.waitFor("REDACTED")
	if strings.Contains(scr, key) {
		t.Fatalf("the key is on the screen:\n%s", scr)
	}
}
