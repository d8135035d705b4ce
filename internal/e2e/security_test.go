package e2e

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// umaskCommand runs clawdcode with umask 000, so any file or directory
// created with a loose mode shows it.
func (w *world) umaskCommand(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "bash", append([]string{"-c", `umask 000; exec "$0" "$@"`, w.Binary}, args...)...)
	cmd.Dir = w.Project
	cmd.Env = w.Env()
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

func (w *world) runUmask(args ...string) result {
	w.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
	defer cancel()
	r := harness.Wait(w.T, ctx, w.umaskCommand(ctx, args...))
	if r.Code != 0 {
		w.T.Fatalf("clawdcode %q (umask 000): want exit 0\n%s", args, r)
	}
	return r
}

// replTurn types one prompt into the REPL (umask 000) and leaves with
// /exit, so the history file is written.
func (w *world) replTurn(prompt string, args ...string) {
	w.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
	defer cancel()
	term := w.startREPL(w.umaskCommand(ctx, args...))
	term.expect("> ")
	term.send(prompt + "\r")
	term.expect(prompt)
	term.expect("You said: ") // the scripted model's answer, whatever it quotes
	term.expect("> ")
	term.send("/exit\r")
	if code := term.wait(); code != 0 {
		w.T.Fatalf("REPL: exit %d", code)
	}
}

func TestFileModesUnderCLAWDCODE_HOME(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash for umask")
	}
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(threeRounds)
	flags := []string{"-p", "--dangerously-skip-permissions", "--context-window", "4000"}
	w.runUmask(append(flags, stepPrompt(1))...)
	// Until one compacted: the context ladder clears and folds old
	// results before it summarises.
	for i := 2; i <= 16 && countBoundaries(t, w) == 0; i++ {
		w.runUmask(append(append([]string{"-c"}, flags...), stepPrompt(i))...)
	}
	w.runUmask("-c", "-p", "/compact keep the file names")
	w.runUmask("-p", "/new second session")
	w.runUmask("sessions", "list")
	w.runUmask("sessions", "list", "--all", "--json")
	w.replTurn("hello from the repl")
	w.replTurn("and again", "-c")

	if compactions := countBoundaries(t, w); compactions < 2 {
		t.Errorf("%d compactions; the run should have compacted automatically and by /compact", compactions)
	}
	if _, err := os.Stat(filepath.Join(w.Home, "history")); err != nil {
		t.Errorf("the REPL left no history file under CLAWDCODE_HOME: %v", err)
	}

	var files, dirs int
	err := filepath.WalkDir(w.Home, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(w.Home, path)
		switch mode := info.Mode(); {
		case mode.IsDir():
			dirs++
			if perm := mode.Perm(); perm != 0o700 {
				t.Errorf("directory %s has mode %04o, want 0700", rel, perm)
			}
		case mode.IsRegular():
			files++
			if perm := mode.Perm(); perm != 0o600 {
				t.Errorf("file %s has mode %04o, want 0600", rel, perm)
			}
		default:
			t.Errorf("%s is neither a file nor a directory (%v)", rel, mode)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("checked %d files and %d directories", files, dirs)
	if idx, _ := filepath.Glob(filepath.Join(w.projectsDir(), "*", "index.json")); len(idx) == 0 {
		t.Errorf("no index.json was written, so its mode went unchecked")
	}
}

// keyEcho is a server error that quotes the key in full, as a careless
// proxy might: the worst case for keeping it off disk.
func keyEcho(status int, key string) llmtest.Reply {
	r := llmtest.Error(status, "Incorrect API key provided: "+key+". You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_request_error", "invalid_api_key")
	if status >= 500 {
		r = llmtest.Error(status, "The upstream rejected the request made with key "+key+".", "server_error", "")
	}
	r.Header = http.Header{"Retry-After-Ms": {"10"}}
	return r
}

func TestAPIKeyNeverWrittenToDisk(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	agent := llmtest.Agent()
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		if isSummaryRequest(r) {
			return llmtest.Text(summaryText)
		}
		return agent(r)
	})
	skip := "--dangerously-skip-permissions"

	// A normal run whose tools look at the environment.
	w.MustRun("-p", skip, "bash env\nbash echo \"key=$OPENAI_API_KEY\"")
	last := w.Server.LastRequest().Messages
	for _, m := range last {
		if m.Role == chat.RoleTool && strings.Contains(m.Content, w.Key) {
			t.Errorf("a Bash command saw OPENAI_API_KEY: %q", m.Content[:min(len(m.Content), 200)])
		}
	}
	// Failures whose error bodies quote the key.
	w.Server.Enqueue(keyEcho(http.StatusUnauthorized, w.Key))
	if r := w.Run("-c", "-p", "this fails with 401"); r.Code != 1 {
		t.Errorf("401: want exit 1\n%s", r)
	}
	w.Server.Enqueue(keyEcho(500, w.Key), keyEcho(500, w.Key), keyEcho(500, w.Key), keyEcho(500, w.Key))
	if r := w.Run("-c", "-p", "--output-format", "json", "this fails with 500s"); r.Code != 1 {
		t.Errorf("500s: want exit 1\n%s", r)
	}
	echoStream := llmtest.MidStreamError(llmtest.Text("partial words before the error"), 2)
	echoStream.StreamError = `{"message":"upstream rejected key ` + w.Key + `","type":"server_error","code":null}`
	w.Server.Enqueue(echoStream)
	if r := w.Run("-c", "-p", "--output-format", "stream-json", "this breaks mid-stream"); r.Code != 1 {
		t.Errorf("mid-stream error: want exit 1\n%s", r)
	}
	w.MustRun("-c", "-p", "/compact")
	w.MustRun("sessions", "list", "--json")
	w.replTurn("a typed line", "-c")

	for _, dir := range []string{w.Home, w.UserHome, w.Tmp} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if strings.Contains(string(data), w.Key) || strings.Contains(string(data), "SECRETMARKER") {
				t.Errorf("the API key is written in %s", path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Every request carried the key, so it really was in play.
	for _, r := range w.Server.Requests() {
		if r.Authorization != "Bearer "+w.Key {
			t.Fatalf("a request was sent with Authorization %q", r.Authorization)
		}
	}
}

// TestToolsDeniedWithoutPermission: under -p, Write, Edit and Bash run
// only when allowed; otherwise the model gets a denial and nothing happens.
func TestToolsDeniedWithoutPermission(t *testing.T) {
	t.Parallel()
	// Edit needs the file read first, so the read is its own round.
	calls := func() []llmtest.Reply {
		return []llmtest.Reply{
			llmtest.ToolCalls(call("Read", map[string]any{"file_path": "keep.txt"})),
			llmtest.ToolCalls(
				call("Write", map[string]any{"file_path": "written.txt", "content": "should not exist"}),
				call("Bash", map[string]any{"command": "touch bash-marker"}),
				call("Edit", map[string]any{"file_path": "keep.txt", "old_string": "original", "new_string": "edited"}),
			),
			llmtest.Text("done"),
		}
	}
	cases := []struct {
		name  string
		flags []string
		// which of Write, Bash, Edit may run
		write, bash, edit bool
	}{
		{"no flags", nil, false, false, false},
		{"Read,Glob,Grep allowed", []string{"--allowed-tools", "Read,Glob,Grep"}, false, false, false},
		{"only Write allowed", []string{"--allowed-tools", "Write"}, true, false, false},
		{"only Bash allowed", []string{"--allowed-tools", "Bash"}, false, true, false},
		{"Edit and Write allowed", []string{"--allowed-tools", "Edit,Write"}, true, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, llmtest.Options{})
			if err := os.WriteFile(filepath.Join(w.Project, "keep.txt"), []byte("original\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			w.Server.Enqueue(calls()...)
			r := w.Run(append(append([]string{"-p"}, c.flags...), "write, touch and edit")...)
			if r.Code != 0 {
				t.Fatalf("want exit 0 (a denial is a tool result, not a failure)\n%s", r)
			}
			_, errW := os.Stat(filepath.Join(w.Project, "written.txt"))
			_, errB := os.Stat(filepath.Join(w.Project, "bash-marker"))
			keep, _ := os.ReadFile(filepath.Join(w.Project, "keep.txt"))
			if ran := errW == nil; ran != c.write {
				t.Errorf("Write ran: %v, want %v", ran, c.write)
			}
			if ran := errB == nil; ran != c.bash {
				t.Errorf("Bash ran: %v, want %v", ran, c.bash)
			}
			if ran := strings.Contains(string(keep), "edited"); ran != c.edit {
				t.Errorf("Edit ran: %v, want %v (keep.txt = %q)", ran, c.edit, keep)
			}

			msgs := w.Server.LastRequest().Messages
			results := map[string]string{}
			var order []string
			for _, m := range msgs {
				if m.Role == chat.RoleAssistant {
					for _, tc := range m.ToolCalls {
						results[tc.ID] = ""
						order = append(order, tc.ID+" "+tc.Name)
					}
				}
				if m.Role == chat.RoleTool {
					results[m.ToolCallID] = m.Content
				}
			}
			for _, o := range order {
				id, name, _ := strings.Cut(o, " ")
				allowed := map[string]bool{"Write": c.write, "Bash": c.bash, "Edit": c.edit, "Read": true}[name]
				out := results[id]
				denied := strings.Contains(strings.ToLower(out), "denied") || strings.Contains(strings.ToLower(out), "not allowed") || strings.Contains(strings.ToLower(out), "permission")
				if !allowed && !denied {
					t.Errorf("%s was not allowed but the model got %q, not a denial", name, out)
				}
				if allowed && denied {
					t.Errorf("%s was allowed but the model got a denial: %q", name, out)
				}
			}
			if len(order) != 4 {
				t.Errorf("the model's four calls were not all answered: %v", order)
			}
			_, path := w.onlySession()
			recs := parseSession(t, path).records
			for _, rec := range recs {
				if rec.Type == "tool_result" && rec.ToolResult != nil {
					var name string
					for _, u := range recs {
						if u.Type == "tool_use" && u.Tool != nil && u.Tool.ID == rec.ToolResult.ID {
							name = u.Tool.Name
						}
					}
					allowed := map[string]bool{"Write": c.write, "Bash": c.bash, "Edit": c.edit, "Read": true}[name]
					if !allowed && rec.ToolResult.Error == "" {
						t.Errorf("the tool_result of the denied %s is not marked as an error: %+v", name, rec.ToolResult)
					}
				}
			}
		})
	}
}

// TestUserPathsStayInHome: titles and names a user types are data, never
// paths: /new with a path-like title and /switch to a path create nothing
// outside CLAWDCODE_HOME.
func TestUserPathsStayInHome(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.establish()
	before := w.outside()
	homeBefore := tree(t, w.Home)
	for _, args := range [][]string{
		{"-p", "/new ../../../escaped-title"},
		{"-p", "/new /etc/evil"},
		{"-c", "-p", "/switch ../../../escaped"},
		{"-c", "-p", "/switch /etc/passwd"},
		{"-m", "../../../model-escape", "-c", "-p", "hello"},
	} {
		r := w.Run(args...)
		checkNoCrash(t, r)
		t.Logf("%q: exit %d %s", args, r.Code, firstLine(r.Stderr+r.Stdout))
	}
	w.assertNothingOutside(before)
	for p := range tree(t, w.Home) {
		if _, ok := homeBefore[p]; ok {
			continue
		}
		if strings.Contains(p, "escape") || strings.Contains(p, "evil") || strings.Contains(p, "passwd") {
			t.Errorf("a user-typed name became a path under CLAWDCODE_HOME: %s", p)
		}
		t.Logf("new path under CLAWDCODE_HOME: %s", p)
	}
}

// countBoundaries counts the compactions in the world's session files.
func countBoundaries(t *testing.T, w *world) int {
	t.Helper()
	n := 0
	for _, path := range w.sessionFiles() {
		for _, r := range parseSession(t, path).records {
			if r.Subtype == "compact_boundary" {
				n++
			}
		}
	}
	return n
}
