//go:build unix

package repl

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// startScreenWith is startScreen with more environment (after the
// defaults: a later variable wins) and a home prepared by prepare (its
// project and CLAWDCODE_HOME; nil: nothing).
func startScreenWith(t *testing.T, srv *llmtest.Server, width, height int, env []string, prepare func(project, home string), args ...string) *tmuxScreen {
	t.Helper()
	s := newScreen(t, srv, env, prepare)
	s.start(width, height, args...)
	return s
}

// newScreen is startScreenWith's screen before it starts.
func newScreen(t *testing.T, srv *llmtest.Server, env []string, prepare func(project, home string)) *tmuxScreen {
	t.Helper()
	needTmux(t)
	tmp := t.TempDir()
	project := filepath.Join(tmp, "project")
	home := filepath.Join(tmp, "home")
	for _, d := range []string{project, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if prepare != nil {
		prepare(project, home)
	}
	return &tmuxScreen{t: t, dir: project, env: append([]string{
		"HOME=" + tmp,
		"CLAWDCODE_HOME=" + home,
		"OPENAI_BASE_URL=" + srv.URL(),
	}, env...)}
}

// logScreen logs what the screen shows, for the lead's record of the
// issue's items.
func logScreen(t *testing.T, what string, s *tmuxScreen) {
	t.Helper()
	t.Logf("%s:\n%s", what, s.screen())
}

// fakeClipboard writes an xclip that prints a PNG, and returns the
// directory to put first on PATH.
func fakeClipboard(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	pngPath := filepath.Join(dir, "shot.png")
	if err := os.WriteFile(pngPath, img.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ncase \"$*\" in *image/png*) exec cat " + shellQuote(pngPath) + ";; esac\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, "xclip"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestScreenClipboardImage: issue 36 item 5. Ctrl-V attaches the image
// the clipboard holds (read with xclip under X11), as a dropped image
// file is attached; without a clipboard tool it says so under the entry.
func TestScreenClipboardImage(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("A small black square."))
	bin := fakeClipboard(t)
	s := startScreenWith(t, srv, 100, 20, []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "DISPLAY=:99"}, nil)
	s.waitPrompt()
	s.keys("what is this? ")
	s.sendKeys("C-v")
	s.waitFor("clipboard-")
	s.sendKeys("Enter")
	s.waitFor("A small black square.")
	logScreen(t, "Ctrl-V with an image in the clipboard", s)
	body := string(srv.LastRequest().Body)
	if !strings.Contains(body, "data:image/png;base64,") {
		t.Fatalf("the request carries no image: %.300s", body)
	}
	if !strings.Contains(s.screen(), "attached image") {
		t.Fatalf("no attached line:\n%s", s.screen())
	}

	// No clipboard tool at all: one clear line, the entry unchanged.
	empty := t.TempDir()
	srv2 := llmtest.NewServer(t, llmtest.Options{})
	n := startScreenWith(t, srv2, 100, 20, []string{"PATH=" + empty + ":/usr/bin:/bin", "DISPLAY=", "WAYLAND_DISPLAY="}, nil)
	n.waitPrompt()
	n.keys("look")
	n.sendKeys("C-v")
	n.waitFor("no clipboard tool for images: install wl-clipboard or xclip (macOS: pngpaste)")
	logScreen(t, "Ctrl-V without a clipboard tool", n)
}

// taskDescription is the Task tool's description in the last request.
func taskDescription(t *testing.T, srv *llmtest.Server) string {
	t.Helper()
	for _, d := range srv.LastRequest().Tools {
		if d.Name == "Task" {
			return d.Description
		}
	}
	t.Fatal("the last request offers no Task tool")
	return ""
}

// TestScreenNewAgentFileWithoutRestart: issue 36 item 6. An agent file
// written while the REPL runs is listed by /agents, its description whole
// (not cut), and offered by Task from the next message on.
func TestScreenNewAgentFileWithoutRestart(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	var project string
	s := startScreenWith(t, srv, 100, 30, nil, func(p, _ string) { project = p })
	s.waitPrompt()
	s.enterAndWait("hello", "You said: hello")
	if strings.Contains(taskDescription(t, srv), "reviewer") {
		t.Fatal("a reviewer before there is one")
	}
	dir := filepath.Join(project, ".clawdcode", "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	desc := "Reviews a change for security problems, missing tests and unclear names, then reports them by severity"
	if err := os.WriteFile(filepath.Join(dir, "reviewer.md"), []byte("---\ndescription: "+desc+"\ntools: Read, Grep\n---\nYou review changes.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.waitPrompt()
	s.enterAndWait("/agents", "reviewer — Reviews a change")
	s.waitFor("them by severity") // whole, broken at a word: not cut
	s.waitPrompt()
	s.enterAndWait("again", "You said: again")
	if d := taskDescription(t, srv); !strings.Contains(d, "- reviewer: "+desc) {
		t.Fatalf("Task does not offer the new type:\n%s", d)
	}
	logScreen(t, "an agent file added while the REPL runs", s)
}

// TestScreenAgentsNew: issue 36 item 6. /agents new asks for the name,
// description, tools, place and prompt, writes the file, and Task offers
// the type from the next message.
func TestScreenAgentsNew(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	var project string
	s := startScreenWith(t, srv, 100, 40, nil, func(p, _ string) { project = p })
	s.waitPrompt()
	s.enterAndWait("/agents new", "Name of the new subagent type")
	s.enterAndWait("test-runner", "When should the model use it?")
	s.enterAndWait("Runs the tests and reports the failures", "Which tools may it use?")
	s.enterAndWait("bash, read", "Where should it live?")
	s.keys("1")
	s.waitFor("Its system prompt")
	s.enterAndWait("Run go test ./... and report each failure with its file and line.", "offers \"test-runner\" from your next message")
	s.waitPrompt()
	data, err := os.ReadFile(filepath.Join(project, ".clawdcode", "agents", "test-runner.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "---\ndescription: \"Runs the tests and reports the failures\"\ntools: Bash, Read\n---\nRun go test ./... and report each failure with its file and line.\n"
	if string(data) != want {
		t.Fatalf("the file:\n%s\nwant:\n%s", data, want)
	}
	s.enterAndWait("hi", "You said: hi")
	if d := taskDescription(t, srv); !strings.Contains(d, "- test-runner: Runs the tests and reports the failures") {
		t.Fatalf("Task does not offer the new type:\n%s", d)
	}
	logScreen(t, "/agents new", s)
}

// TestScreenSubagentMarkedInPicker: issue 36 item 6. A subagent's
// transcript is a row of the /resume picker marked as the subagent of its
// parent.
func TestScreenSubagentMarkedInPicker(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreenWith(t, srv, 120, 30, nil, nil)
	s.waitPrompt()
	s.enterAndWait("task explore look around", "Tool results:")
	s.waitPrompt()
	s.keys("/resume")
	s.sendKeys("Enter")
	scr := s.waitFor("↳ subagent of ")
	if !strings.Contains(scr, "· explore task") {
		t.Fatalf("the subagent's row:\n%s", scr)
	}
	logScreen(t, "the /resume picker with a subagent's transcript", s)
	s.sendKeys("Escape")
}

// TestScreenBackgroundShells: issue 36 item 7. The permission dialog says
// a command runs in the background; the status line counts those
// running; /bashes shows one's output and stops it; leaving the REPL says
// which still run, and ends them.
func TestScreenBackgroundShells(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreenWith(t, srv, 110, 40, nil, nil)
	s.waitPrompt()
	s.enterAndWait("bash-bg echo server up on 8080; sleep 300", "runs in the background: it keeps running (/bashes shows it and can stop it)")
	logScreen(t, "the permission dialog of a background command", s)
	s.keys("1")
	s.waitFor("Tool results:")
	scr := s.waitPrompt()
	if !strings.Contains(scr, "1 shell running (/bashes)") {
		t.Fatalf("the status line does not count the running shell:\n%s", scr)
	}
	logScreen(t, "the status line with a shell running", s)

	s.enterAndWait("/bashes", "pick one to see its output")
	s.sendKeys("Enter")
	s.waitFor("  server up on 8080")
	s.waitFor("Stop bash_1 and everything it started?")
	s.keys("y")
	s.waitFor("bash_1 stopped after")
	scr = s.waitPrompt()
	if strings.Contains(scr[strings.LastIndex(scr, "bash_1 stopped"):], "shell running") {
		t.Fatalf("the status line still counts a stopped shell:\n%s", scr)
	}
	logScreen(t, "/bashes: output, then stopped", s)

	s.keys("bash-bg sleep 301")
	s.sendKeys("Enter")
	// The first dialog's lines are still on the screen: wait for this one's.
	s.waitFor("allow Bash(sleep 301:*) for this session")
	s.keys("1")
	s.waitFor("bash_2")
	s.waitPrompt()
	s.sendKeys("C-d")
	s.waitFor("Stopping 1 background command still running, with everything it started: bash_2 (sleep 301)")
	s.waitFor("[exited 0]")
	logScreen(t, "leaving with a shell running", s)
}

// TestScreenAcceptEditsDiffWraps: issue 36 item 8. In accept-edits mode
// the diff of an applied Edit wraps a long line at words to the
// terminal's width, never cutting it at the edge.
func TestScreenAcceptEditsDiffWraps(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	long := "The configuration loader reads every file in order and the later ones win over the earlier ones, key by key, ENDOFLINE"
	s := startScreenWith(t, srv, 80, 30, nil, func(project, _ string) {
		if err := os.WriteFile(filepath.Join(project, "notes.txt"), []byte("first\n"+long+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}, "--permission-mode", "acceptEdits")
	s.waitPrompt()
	s.enterAndWait("read notes.txt", "Tool results:")
	s.waitPrompt()
	s.enterAndWait("edit notes.txt ENDOFLINE WRAPPED-END", "Added 1 line, removed 1")
	s.waitPrompt()
	vis := s.tmux("capture-pane", "-p", "-S", "-60", "-t", s.target) // rows as drawn, not joined
	if !strings.Contains(vis, "WRAPPED-END") || !strings.Contains(vis, "↪") {
		t.Fatalf("the applied diff's long line is not wrapped whole:\n%s", vis)
	}
	for _, row := range strings.Split(vis, "\n") {
		if strings.HasSuffix(strings.TrimRight(row, " "), "…") && strings.Contains(row, "key by") {
			t.Fatalf("a diff row cut at the edge: %q", row)
		}
	}
	logScreen(t, "the applied diff of an Edit in accept-edits mode, 80 columns", s)
}

// TestScreenLongPromptEcho: issue 36 item 10. A long prompt stays on the
// screen broken at words, as typed (and as a first prompt given on the
// command line), never cut mid-word.
func TestScreenLongPromptEcho(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	long := "please look through the configuration loader and explain why environment variables override the project file"
	s := startScreenWith(t, srv, 50, 30, nil, nil, long)
	s.waitFor("You said: please")
	s.waitPrompt()
	s.enterAndWait(long+" again", "file again")
	s.waitPrompt()
	rows := s.tmux("capture-pane", "-p", "-S", "-60", "-t", s.target) // as drawn, not joined
	words := map[string]bool{}
	for _, w := range strings.Fields(long + " again") {
		words[w] = true
	}
	echo := false
	for _, row := range strings.Split(rows, "\n") {
		switch {
		case strings.HasPrefix(row, "> please"):
			echo = true
		case strings.HasPrefix(row, "You said"):
			echo = false
		}
		if !echo {
			continue
		}
		for _, w := range strings.Fields(strings.TrimPrefix(row, "> ")) {
			if !words[w] {
				t.Fatalf("a word cut at the edge: %q in row %q\n%s", w, row, rows)
			}
		}
	}
	logScreen(t, "a long prompt, 50 columns", s)
}

// TestScreenDenyOneOfTwoCalls: issue 36 item 10. Denying the first of two
// calls of one answer does not ask about the second: it is not run, and
// the model is told why.
func TestScreenDenyOneOfTwoCalls(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreenWith(t, srv, 100, 30, nil, nil)
	s.waitPrompt()
	s.paste("bash echo first > first.txt\nbash echo second > second.txt")
	s.sendKeys("Enter")
	s.waitFor("? Bash(echo first > first.txt)")
	s.keys("n")
	s.waitFor("Esc: just no")
	s.sendKeys("Escape")
	s.waitFor("Tool results:")
	scr := s.waitPrompt()
	if strings.Contains(scr, "? Bash(echo second") {
		t.Fatalf("the second call was asked about:\n%s", scr)
	}
	var second string
	for _, m := range srv.LastRequest().Messages {
		if m.Role == "tool" {
			second = m.Content
		}
	}
	if !strings.Contains(second, "Not run: the user denied Bash(echo first > first.txt) earlier in this answer") {
		t.Fatalf("the second call's answer: %q", second)
	}
	logScreen(t, "one of two calls denied", s)
}

// TestScreenEscEscRewinds: issue 36 item 10. Esc Esc at an empty prompt
// opens /rewind, as in Claude Code.
func TestScreenEscEscRewinds(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreenWith(t, srv, 100, 30, nil, nil)
	s.waitPrompt()
	s.enterAndWait("the first message", "You said: the first message")
	s.waitPrompt()
	before := strings.Count(s.screen(), "ewind")
	s.sendKeys("Escape", "Escape")
	for deadline := time.Now().Add(waitLimit); strings.Count(s.screen(), "ewind") == before; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Esc Esc did not open /rewind:\n%s", s.screen())
		}
	}
	logScreen(t, "Esc Esc at the prompt", s)
	s.sendKeys("Escape")
}

// TestScreenBangCommand: issue 36 item 10. A !command shows a spinner
// while it runs, and its output, which goes to the model with the next
// message, does not title the session: the user's words do.
func TestScreenBangCommand(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreenWith(t, srv, 100, 30, nil, nil)
	s.waitPrompt()
	s.enterAndWait("!sleep 3; echo built ok", "running !sleep 3; echo built ok")
	s.waitFor("(the output goes to the model with your next message)")
	s.waitPrompt()
	s.enterAndWait("did the build pass?", "You said: did the build pass?")
	scr := s.waitPrompt()
	lines := strings.Split(strings.TrimRight(scr, "\n"), "\n")
	if status := lines[len(lines)-1]; !strings.HasSuffix(status, "did the build pass?") {
		t.Fatalf("the session's title is not the user's words: %q", status)
	}
	if last := srv.LastRequest().Messages; !strings.Contains(last[len(last)-1].Content, "built ok") {
		t.Fatalf("the command's output did not reach the model: %q", last[len(last)-1].Content)
	}
	logScreen(t, "a !command, then a message", s)
}

// TestScreenTodoWriteHeader: issue 36 item 10. A TodoWrite call's header
// is its progress and the item in progress, not its JSON.
func TestScreenTodoWriteHeader(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.ToolCalls(llmtest.Call("TodoWrite", `{"todos":[{"content":"write the parser","status":"in_progress"},{"content":"test it","status":"pending"}]}`)),
		llmtest.Text("Planned."))
	s := startScreenWith(t, srv, 100, 30, nil, nil)
	s.waitPrompt()
	s.keys("plan it")
	s.sendKeys("Enter")
	scr := s.waitFor("Planned.")
	if !strings.Contains(scr, "TodoWrite(0/2 done · now: write the parser)") || strings.Contains(scr, `{"todos"`) {
		t.Fatalf("the TodoWrite header:\n%s", scr)
	}
	logScreen(t, "a TodoWrite call", s)
}

// TestScreenContextFigureAgrees: issue 36 item 10. The status line's ctx
// figure is /context's percentage.
func TestScreenContextFigureAgrees(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreenWith(t, srv, 120, 30, nil, nil, "--context-window", "6850") // ~17.6%: floor and round differ
	s.waitPrompt()
	s.enterAndWait("hello", "You said: hello")
	s.waitPrompt()
	s.enterAndWait("/context", "Context usage:")
	scr := s.waitPrompt()
	var fromContext, fromStatus string
	for _, l := range strings.Split(scr, "\n") {
		if i := strings.Index(l, "tokens ("); strings.HasPrefix(l, "Context usage:") && i > 0 {
			fromContext = strings.TrimSuffix(l[i+len("tokens ("):], ")")
		}
		if i := strings.Index(l, "ctx "); i >= 0 && strings.Contains(l, "to compact") {
			fromStatus = strings.Fields(l[i+4:])[0]
		}
	}
	if fromContext == "" || fromContext != fromStatus {
		t.Fatalf("/context says %q, the status line %q:\n%s", fromContext, fromStatus, scr)
	}
	logScreen(t, "/context and the status line", s)
}

// TestScreenTrustQuestionsTakeOneKey: issue 36 items 5 and 10. The trust
// question about the project's file is answered by one key, without
// Enter; so is the one about its skills, which are then offered.
func TestScreenTrustQuestionsTakeOneKey(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreenWith(t, srv, 100, 30, nil, func(project, _ string) {
		for path, text := range map[string]string{
			".clawdcode/config.toml":         "[[hooks.Stop]]\ncommand = \"true\"\n",
			".clawdcode/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Fill PDF forms.\nallowed-tools: Read\n---\nUse pdftk.\n",
		} {
			full := filepath.Join(project, path)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
	s.waitFor("Trust this file? (y = use it, N = ignore these settings this time) [y/N]")
	s.keys("y")
	s.waitFor(`offer the skill "pdf" to the model`)
	s.waitFor("Offer these skills? (y = offer them, N = not this time) [y/N]")
	s.keys("y")
	s.waitPrompt()
	s.enterAndWait("/skills", "pdf — Fill PDF forms.")
	logScreen(t, "the trust questions, one key each", s)
}

// TestScreenAddDir: issue 36 item 5. /add-dir lets Write work in another
// directory as in the project: accept-edits covers it.
func TestScreenAddDir(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	var other string
	s := startScreenWith(t, srv, 110, 30, nil, func(project, _ string) {
		other = filepath.Join(filepath.Dir(project), "other")
		if err := os.MkdirAll(other, 0o755); err != nil {
			t.Fatal(err)
		}
	}, "--permission-mode", "acceptEdits")
	s.waitPrompt()
	s.enterAndWait("/add-dir ../other", "Added "+other)
	s.waitPrompt()
	s.enterAndWait("write "+filepath.Join(other, "notes.txt")+" kept", "Tool results:")
	if data, err := os.ReadFile(filepath.Join(other, "notes.txt")); err != nil || strings.TrimSpace(string(data)) != "kept" {
		t.Fatalf("the write in the added directory did not run (%v):\n%s", err, s.screen())
	}
	if strings.Contains(s.screen(), "? Write(") {
		t.Fatalf("accept-edits asked about the added directory:\n%s", s.screen())
	}
	if last := srv.LastRequest().Messages; !strings.Contains(last[len(last)-3].Content, "[The user added the directory "+other) {
		t.Fatalf("the model was not told of the directory: %q", last[len(last)-3].Content)
	}
	logScreen(t, "/add-dir, then a write there in accept-edits mode", s)
}
