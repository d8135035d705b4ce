//go:build unix

package repl

import (
	"regexp"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// captureAgents: item 6. An agent file written while the REPL runs is
// listed by /agents (its description whole) without a restart; /agents
// new asks for one and writes it.
func captureAgents(t *testing.T, c captures) {
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreenWith(t, srv, 100, 40, nil, nil)
	s.waitPrompt()
	s.enterAndWait("hello", "You said: hello")
	s.waitPrompt()
	writeFiles(t, s.dir, map[string]string{".clawdcode/agents/reviewer.md": "---\ndescription: Reviews a change for security problems, missing tests and unclear names, then reports them by severity\ntools: Read, Grep\n---\nYou review changes.\n"})
	s.enterAndWait("/agents", "them by severity")
	s.waitPrompt()
	c.shot("/agents after .clawdcode/agents/reviewer.md was written, no restart: listed, its description whole", s)
	s.sendKeys("C-l")
	s.enterAndWait("/agents new", "Name of the new subagent type")
	s.enterAndWait("test-runner", "When should the model use it?")
	s.enterAndWait("Runs the tests and reports the failures", "Which tools may it use?")
	s.enterAndWait("bash, read", "Where should it live?")
	c.shot("/agents new: name, description, tools asked; where it lives", s)
	s.keys("1")
	s.waitFor("Its system prompt")
	s.enterAndWait("Run go test ./... and report each failure with its file and line.", "from your next message")
	s.waitPrompt()
	c.shot("/agents new: written, offered from the next message", s)
	s.kill()
}

// captureSubagentPicker: item 6. A subagent's transcript marked in the -r
// picker, and sessions show of it naming its parent.
func captureSubagentPicker(t *testing.T, c captures) {
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreenWith(t, srv, 120, 24, nil, nil)
	s.waitPrompt()
	s.enterAndWait("task explore look around", "Tool results:")
	s.waitPrompt()
	s = s.again(120, 24, "-r")
	s.waitFor("↳ subagent of ")
	c.shot("clawdcode -r: the subagent's transcript marked as its parent's", s)
	s.sendKeys("Escape")
	s = s.again(120, 24, "sessions", "list")
	scr := s.waitFor("[exited ")
	c.shot("clawdcode sessions list", s)
	var sub string
	for _, line := range strings.Split(scr, "\n") {
		if strings.Contains(line, "explore task") {
			sub = regexp.MustCompile(`[0-9a-f]{8}`).FindString(line)
		}
	}
	if sub == "" {
		t.Fatalf("no subagent row in sessions list:\n%s", scr)
	}
	s = s.again(120, 24, "sessions", "show", sub)
	s.waitFor("[exited ")
	c.shot("clawdcode sessions show "+sub+" (the subagent's): its parent named", s)
	s.kill()
}

// captureBackgroundShells: item 7. The dialog says background, the
// status line counts, /bashes lists, shows the output and stops; leaving
// says which still run.
func captureBackgroundShells(t *testing.T, c captures) {
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreenWith(t, srv, 110, 30, nil, nil)
	s.waitPrompt()
	s.enterAndWait("bash-bg echo server up on 8080; sleep 300", "runs in the background")
	c.shot("the permission dialog of a background command says so", s)
	s.keys("1")
	s.waitFor("Tool results:")
	s.waitPrompt()
	c.shot("the status line counts the shell running", s)
	s.enterAndWait("/bashes", "pick one to see its output")
	c.shot("/bashes: the picker", s)
	s.sendKeys("Enter")
	s.waitFor("Stop bash_1 and everything it started?")
	c.shot("/bashes: bash_1's output, and the question to stop it", s)
	s.keys("y")
	s.waitFor("bash_1 stopped after")
	s.waitPrompt()
	c.shot("/bashes: stopped, the status line's count gone", s)
	s.enterAndWait("bash-bg sleep 301", "allow Bash(sleep 301:*) for this session")
	s.keys("1")
	s.waitFor("bash_2")
	s.waitPrompt()
	s.sendKeys("C-d")
	s.waitFor("[exited 0]")
	c.shot("leaving the REPL with a shell running: said, then stopped", s)
	s.kill()
}

// captureAcceptEditsDiff: item 8. The applied diff of an Edit in
// accept-edits mode at 80 columns, its long line wrapped.
func captureAcceptEditsDiff(t *testing.T, c captures) {
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	long := "The configuration loader reads every file in order and the later ones win over the earlier ones, key by key, ENDOFLINE"
	s := startScreenWith(t, srv, 80, 24, nil, func(project, _ string) {
		writeFiles(t, project, map[string]string{"notes.txt": "first\n" + long + "\n"})
	}, "--permission-mode", "acceptEdits")
	s.waitPrompt()
	s.enterAndWait("read notes.txt", "Tool results:")
	s.waitPrompt()
	s.sendKeys("C-l")
	s.enterAndWait("edit notes.txt ENDOFLINE WRAPPED-END", "Added 1 line, removed 1")
	s.waitPrompt()
	c.shot("accept-edits at 80 columns: the applied diff's 120-character line wrapped, not cut", s)
	s.kill()
}

// capturePolish: item 10. Esc Esc opens /rewind; a !command's spinner,
// then the session titled by the user's words; a long prompt's echo
// broken at words.
func capturePolish(t *testing.T, c captures) {
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreenWith(t, srv, 100, 24, nil, nil)
	s.waitPrompt()
	s.enterAndWait("the first message", "You said: the first message")
	s.waitPrompt()
	s.sendKeys("Escape", "Escape")
	s.waitFor("newest first")
	c.shot("Esc Esc at an empty prompt: /rewind", s)
	s.sendKeys("Escape")
	s.waitPrompt()
	s.kill()

	s = startScreenWith(t, srv, 100, 24, nil, nil)
	s.waitPrompt()
	s.enterAndWait("!sleep 4; echo built ok", "running !sleep 4")
	c.shot("!sleep 4; echo built ok: the spinner while it runs", s)
	s.waitFor("(the output goes to the model with your next message)")
	s.waitPrompt()
	s.enterAndWait("did the build pass?", "You said: did the build pass?")
	s.waitPrompt()
	c.shot("after a !command, a message: the status line's title is the user's words", s)
	s.kill()

	long := "please look through the configuration loader and explain why environment variables override the project file"
	s = startScreenWith(t, srv, 50, 24, nil, nil)
	s.waitPrompt()
	s.enterAndWait(long, "project file")
	s.waitPrompt()
	c.shot("a long prompt at 50 columns: its echo broken at words", s)
	s.kill()
}

// capturePolishMore: item 10. The trust question in one key; "1 line";
// one of two calls denied; TodoWrite's header; a config error in the
// file's words.
func capturePolishMore(t *testing.T, c captures) {
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreenWith(t, srv, 100, 30, nil, func(project, _ string) {
		writeFiles(t, project, map[string]string{".clawdcode/config.toml": "[[hooks.Stop]]\ncommand = \"true\"\n"})
	})
	s.waitFor("[y/N]")
	c.shot("the trust question: one key, no Enter", s)
	s.keys("y")
	s.waitPrompt()
	s.enterAndWait("write one.txt hello", "? Write(one.txt)")
	s.keys("1")
	s.waitFor("Tool results:")
	s.waitPrompt()
	s.paste("bash echo first > first.txt\nbash echo second > second.txt")
	s.sendKeys("Enter")
	s.waitFor("? Bash(echo first > first.txt)")
	s.keys("n")
	s.waitFor("Esc: just no")
	s.sendKeys("Escape")
	s.waitFor("• call_003")
	s.waitPrompt()
	c.shot("trusted with y alone; a one-line Write (\"1 line\"); the first of two calls denied, the second not asked", s)
	s.kill()

	todo := llmtest.NewServer(t, llmtest.Options{})
	todo.Enqueue(llmtest.ToolCalls(llmtest.Call("TodoWrite", `{"todos":[{"content":"write the parser","status":"in_progress"},{"content":"test it","status":"pending"}]}`)),
		llmtest.Text("Planned."))
	s = startScreenWith(t, todo, 100, 20, nil, nil)
	s.waitPrompt()
	s.enterAndWait("plan it", "Planned.")
	s.waitPrompt()
	c.shot("a TodoWrite call: its header is the progress, not JSON", s)
	s.kill()

	s = runLine(t, srv, 140, nil, func(_, home string) {
		writeFiles(t, home, map[string]string{"config.toml": "[permissions]\nallow = \"Read\"\n"})
	}, "-p", "hi")
	c.shot("a config value of the wrong type: said in the file's words", s)
	s.kill()
}

// captureContextFigure: item 10. The status line's ctx figure is
// /context's percentage (a window where floor and round differ).
func captureContextFigure(t *testing.T, c captures) {
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreenWith(t, srv, 120, 30, nil, nil, "--context-window", "6850")
	s.waitPrompt()
	s.enterAndWait("hello", "You said: hello")
	s.waitPrompt()
	s.enterAndWait("/context", "Context usage:")
	s.waitPrompt()
	c.shot("/context and the status line's ctx figure agree (--context-window 6850)", s)
	s.kill()
}
