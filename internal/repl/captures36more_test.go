//go:build unix

package repl

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// A captures is where the capture tests write: shot records what a screen
// shows now, note a text that is no screen (what the server received).
type captures struct {
	shot func(title string, s *tmuxScreen)
	note func(title, text string)
}

// TestScreenCapturesIssue36More writes what the screen shows of issue
// 36's items 5–10 (skills, hooks, the new flags and /doctor; subagents;
// background shells; the accept-edits diff; a web page as the base URL
// and a hung MCP server; the polish list) to the file
// CLAWDCODE_SCREEN_CAPTURES names, for the closing note; without it the
// test is skipped. Each item has its own asserting test; this one only
// shows them. A command line's run is shown as its terminal shows it
// (stdout and stderr), then "[exited N]".
func TestScreenCapturesIssue36More(t *testing.T) {
	file := os.Getenv("CLAWDCODE_SCREEN_CAPTURES")
	if file == "" {
		t.Skip("set CLAWDCODE_SCREEN_CAPTURES=<file> to write the screen captures")
	}
	var out strings.Builder
	c := captures{
		shot: func(title string, s *tmuxScreen) {
			fmt.Fprintf(&out, "==== %s (tmux capture-pane of the real binary against llmtest) ====\n%s\n\n", title, s.visible())
		},
		note: func(title, text string) {
			fmt.Fprintf(&out, "==== %s (recorded by the test, not a screen) ====\n%s\n\n", title, strings.TrimRight(text, "\n"))
		},
	}
	defer func() { appendCaptures(t, file, out.String()) }()
	captureSkills(t, c)
	captureHooks(t, c)
	captureDoctor(t, c)
	captureAddDir(t, c)
	captureClipboard(t, c)
	captureFlags(t, c)
	captureAgents(t, c)
	captureSubagentPicker(t, c)
	captureBackgroundShells(t, c)
	captureAcceptEditsDiff(t, c)
	captureWebPageBaseURL(t, c)
	captureHungMCP(t, c)
	capturePolish(t, c)
	capturePolishMore(t, c)
	captureContextFigure(t, c)
}

// writeFiles writes each path (under dir) with its text.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runLine runs clawdcode args in a terminal to its end, and returns the
// screen that shows what it printed.
func runLine(t *testing.T, srv *llmtest.Server, width int, env []string, prepare func(project, home string), args ...string) *tmuxScreen {
	t.Helper()
	s := startScreenWith(t, srv, width, 20, env, prepare, args...)
	s.waitFor("[exited ")
	return s
}

// captureSkills: item 5. A project's skills asked about in one key, /skills,
// a skill used as /name, and the model reading one with Skill.
func captureSkills(t *testing.T, c captures) {
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreenWith(t, srv, 100, 30, nil, func(project, home string) {
		writeFiles(t, project, map[string]string{
			".clawdcode/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Fill PDF forms with pdftk.\nallowed-tools: Read, Bash\n---\nUse `pdftk form.pdf fill_form data.fdf output out.pdf`.\n",
		})
		writeFiles(t, home, map[string]string{
			"skills/commit/SKILL.md": "---\nname: commit\ndescription: Write a commit message in the house style.\n---\nSubject line at most 50 characters, then a blank line and the why.\n",
		})
	})
	s.waitFor("Offer these skills? (y = offer them, N = not this time) [y/N]")
	c.shot("a project's skills follow its trust: the question, answered with one key", s)
	s.keys("y")
	s.waitPrompt()
	s.enterAndWait("/skills", "pdf — Fill PDF forms")
	s.waitPrompt()
	c.shot("/skills: the user's and the project's skills", s)
	s.enterAndWait("/commit the parser fix", `You said: Use the "commit" skill`)
	s.waitPrompt()
	s.enterAndWait("skill pdf", "Tool results:")
	s.waitPrompt()
	c.shot("a skill used as /commit, then the model reading the pdf skill with Skill", s)
	s.kill()
}

// captureHooks: item 5. A UserPromptSubmit hook refuses a prompt (exit 2,
// its reason shown) and adds context to another.
func captureHooks(t *testing.T, c captures) {
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := startScreenWith(t, srv, 100, 24, nil, func(_, home string) {
		writeFiles(t, home, map[string]string{"config.toml": `[[hooks.UserPromptSubmit]]
command = "p=$(cat); case \"$p\" in *deploy*) echo 'no deploys from here' >&2; exit 2;; esac; echo 'The branch is main.'"

[[hooks.PostToolUse]]
matcher = "Bash"
command = "echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"additionalContext\":\"checked by the post hook\"}}'"
`})
	}, "--dangerously-skip-permissions")
	s.waitPrompt()
	s.enterAndWait("deploy to prod now", "no deploys from here")
	s.waitPrompt()
	s.enterAndWait("bash echo ran", "Tool results:")
	s.waitPrompt()
	c.shot("hooks: UserPromptSubmit refuses a prompt with its reason; PostToolUse after a Bash call", s)
	var sent []string
	for _, m := range srv.LastRequest().Messages {
		if m.Role != "system" {
			sent = append(sent, m.Role+": "+m.Content)
		}
	}
	c.note("hooks: the conversation the server received after them (the refused prompt is not in it)", strings.Join(sent, "\n"))
	s.kill()
}

// captureDoctor: item 5. /doctor in the REPL, all well, then with a
// broken MCP server trusted.
func captureDoctor(t *testing.T, c captures) {
	srv := llmtest.NewServer(t, llmtest.Options{FamilyModel: "gpt-4o"})
	srv.SetResponder(llmtest.Agent())
	s := startScreenWith(t, srv, 110, 24, nil, nil)
	s.waitPrompt()
	s.enterAndWait("/doctor", "✓ store")
	s.waitPrompt()
	c.shot("/doctor: all well", s)
	s.kill()
	s = startScreenWith(t, srv, 110, 24, nil, func(project, _ string) {
		writeFiles(t, project, map[string]string{".clawdcode/config.toml": "[mcp_servers.broken]\ncommand = \"/nonexistent/mcp-server\"\n"})
	}, "-m", "my-local-model")
	s.waitFor("[y/N]")
	s.keys("y")
	s.waitPrompt()
	s.enterAndWait("/doctor", "need a look")
	s.waitPrompt()
	c.shot("/doctor: an unknown model and a broken MCP server, each with what to do", s)
	s.kill()
}

// captureAddDir: item 5. /add-dir, then a write there in accept-edits
// mode, asked nothing.
func captureAddDir(t *testing.T, c captures) {
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	var other string
	s := startScreenWith(t, srv, 110, 24, nil, func(project, _ string) {
		other = filepath.Join(filepath.Dir(project), "other")
		writeFiles(t, other, map[string]string{"README": "the other tree\n"})
	}, "--permission-mode", "acceptEdits")
	s.waitPrompt()
	s.enterAndWait("write "+filepath.Join(other, "before.txt")+" refused", "? Write(")
	s.keys("n")
	s.waitFor("Esc: just no")
	s.sendKeys("Escape")
	s.waitPrompt()
	s.enterAndWait("/add-dir ../other", "Added "+other)
	s.waitPrompt()
	s.enterAndWait("write "+filepath.Join(other, "notes.txt")+" kept", "• call_002")
	s.waitPrompt()
	c.shot("/add-dir: a write outside the project is asked about; after /add-dir ../other accept-edits covers it", s)
	s.kill()
}

// captureClipboard: item 5. Ctrl-V with an image in the clipboard (an
// xclip on PATH that prints a PNG, as TestScreenClipboardImage), and with
// no clipboard tool.
func captureClipboard(t *testing.T, c captures) {
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("A small black square."))
	bin := fakeClipboard(t)
	s := startScreenWith(t, srv, 100, 20, []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "DISPLAY=:99"}, nil)
	s.waitPrompt()
	s.keys("what is this? ")
	s.sendKeys("C-v")
	s.waitFor("clipboard-")
	c.shot("Ctrl-V: the clipboard's image attached to the entry", s)
	s.sendKeys("Enter")
	s.waitFor("A small black square.")
	s.waitPrompt()
	c.shot("Ctrl-V: sent with the message (the request carries the PNG)", s)
	s.kill()
	n := startScreenWith(t, srv, 100, 12, []string{"PATH=" + t.TempDir() + ":/usr/bin:/bin", "DISPLAY=", "WAYLAND_DISPLAY="}, nil)
	n.waitPrompt()
	n.keys("look")
	n.sendKeys("C-v")
	n.waitFor("no clipboard tool for images")
	c.shot("Ctrl-V without a clipboard tool: one line, the entry kept", n)
	n.kill()
}

// captureFlags: item 5. --append-system-prompt (the system prompt's end,
// as the server received it) and --mcp-config (a server's tool called).
func captureFlags(t *testing.T, c captures) {
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.SetResponder(llmtest.Agent())
	s := runLine(t, srv, 100, nil, nil, "-p", "--append-system-prompt", "Always answer in French.", "hi")
	c.shot("clawdcode -p --append-system-prompt 'Always answer in French.' hi", s)
	sys := srv.LastRequest().Messages[0].Content
	tail := strings.Split(strings.TrimRight(sys, "\n"), "\n")
	c.note("--append-system-prompt: the system prompt's last 3 lines as the server received them", strings.Join(tail[max(0, len(tail)-3):], "\n"))
	s.kill()

	bin, err := harness.SlowMCPServer()
	if err != nil {
		t.Fatalf("build the MCP server: %v", err)
	}
	doc, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"slow": map[string]any{"command": bin, "args": []string{}}}})
	mcp := llmtest.NewServer(t, llmtest.Options{})
	mcp.Enqueue(llmtest.ToolCalls(llmtest.Call("mcp__slow__greet", `{"name":"ada"}`)), llmtest.Text("The server greeted ada."))
	s = newScreen(t, mcp, nil, nil)
	file := filepath.Join(filepath.Dir(s.dir), "mcp.json")
	writeFiles(t, filepath.Dir(s.dir), map[string]string{"mcp.json": string(doc)})
	s.start(110, 24, "--mcp-config", file, "--allowed-tools", "mcp__slow__greet")
	s.waitPrompt()
	s.enterAndWait("greet ada", "The server greeted ada.")
	s.waitPrompt()
	c.shot("--mcp-config mcp.json ({\"mcpServers\": …}, Claude Code's file): its server's tool called, no config.toml", s)
	s.kill()
}

// captureWebPageBaseURL: item 9. A base URL that serves a web page: one
// line naming the page, the /v1 hint, asked once.
func captureWebPageBaseURL(t *testing.T, c captures) {
	var posts atomic.Int32
	page := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
		}
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		rw.WriteHeader(http.StatusNotImplemented)
		fmt.Fprint(rw, `<!DOCTYPE html><html><head><title>Team Dashboard</title></head><body><h1>Error response</h1><p>Unsupported method ('POST').</p></body></html>`)
	}))
	defer page.Close()
	srv := llmtest.NewServer(t, llmtest.Options{})
	s := runLine(t, srv, 140, []string{"OPENAI_BASE_URL=" + page.URL}, nil, "-p", "hi")
	c.shot(fmt.Sprintf("clawdcode -p hi, OPENAI_BASE_URL a web page answering POST with 501 and HTML (asked %d time)", posts.Load()), s)
	s.kill()
}

// captureHungMCP: item 9. -p in a project whose MCP server never answers,
// and a prompt that calls no MCP tool: the answer at once, nothing said.
func captureHungMCP(t *testing.T, c captures) {
	bin, err := harness.SlowMCPServer()
	if err != nil {
		t.Fatalf("build the MCP server: %v", err)
	}
	srv := llmtest.NewServer(t, llmtest.Options{})
	srv.Enqueue(llmtest.Text("answered without it."))
	s := newScreen(t, srv, nil, func(project, _ string) {
		writeFiles(t, project, map[string]string{".clawdcode/config.toml": harness.SlowMCPConfig("slow", bin, "-hang")})
	})
	began := time.Now()
	s.start(110, 20, "-p", "--trust-project", "hi")
	s.waitFor("[exited ")
	took := time.Since(began).Round(100 * time.Millisecond)
	c.shot(fmt.Sprintf("clawdcode -p --trust-project hi, the project's MCP server hung: the answer, no wait (%s from start to exit, as the test saw it; the server's limit is 10s)", took), s)
	s.kill()

	// Against it: a model that looks for the server's tools waits for it,
	// bounded, and says so.
	srv.Enqueue(llmtest.ToolCalls(llmtest.Call("MCPSearch", `{"query":"greet"}`)), llmtest.Text("answered without it."))
	s = &tmuxScreen{t: t, dir: s.dir, env: s.env}
	began = time.Now()
	s.start(140, 20, "-p", "--trust-project", "find the greeting tool")
	s.waitFor("[exited ")
	took = time.Since(began).Round(100 * time.Millisecond)
	c.shot(fmt.Sprintf("the same project, a model that calls MCPSearch: it waits for the server, bounded, and says so (%s)", took), s)
	s.kill()
}
