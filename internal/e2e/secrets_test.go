package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestToolsCannotReachTheAPIKey: issue 13 item 1. A Bash child read the
// key from clawdcode's own environment (tr '\0' '\n' < /proc/$PPID/environ)
// and its output was stored; other credentials of the user's environment
// reached every command. Now the children see neither, a user can let one
// through by name, and whatever quotes a credential (a file, a server's
// error in a fallback summary) is stored with it redacted.
func TestToolsCannotReachTheAPIKey(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	const ghToken = "ghp_e2e_SECRETMARKER_token_0123456789"
	const npmToken = "npm_e2e_passed_through_0123456789"
	w.ExtraEnv = append(w.ExtraEnv, "GITHUB_TOKEN="+ghToken, "NPM_TOKEN="+npmToken, "CLAWDCODE_ENV_PASSTHROUGH=NPM_TOKEN")
	if err := os.WriteFile(filepath.Join(w.Project, "leak.txt"), []byte("the key is "+w.Key+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	agent := llmtest.Agent()
	summaries := 0
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		if isSummaryRequest(r) {
			summaries++
			return keyEcho(500, w.Key) // every summary call fails, quoting the key
		}
		return agent(r)
	})

	w.MustRun("-p", "--dangerously-skip-permissions",
		"bash tr '\\0' '\\n' < /proc/$PPID/environ\nbash env\nbash cat leak.txt\n"+
			`bash test -n "$NPM_TOKEN" && echo npm-token-visible`)
	var outputs []string
	for _, m := range w.Server.LastRequest().Messages {
		if m.Role == chat.RoleTool {
			outputs = append(outputs, m.Content)
		}
	}
	if len(outputs) != 4 {
		t.Fatalf("want 4 tool results, got %d: %q", len(outputs), outputs)
	}
	for i, out := range outputs[:2] {
		for _, leak := range []string{w.Key, ghToken, "OPENAI_API_KEY=", "GITHUB_TOKEN="} {
			if strings.Contains(out, leak) {
				t.Errorf("command %d saw %q:\n%.400s", i+1, leak, out)
			}
		}
	}
	if !strings.Contains(outputs[3], "npm-token-visible") {
		t.Errorf("CLAWDCODE_ENV_PASSTHROUGH=NPM_TOKEN did not hand NPM_TOKEN to the command: %q", outputs[3])
	}
	// What is stored is what the model is sent on: the file's quote of
	// the key, redacted (a resumed session sends the same).
	if outputs[2] != "the key is [REDACTED]\n" {
		t.Errorf("cat leak.txt reached the model as %q", outputs[2])
	}

	// A compaction whose summary call fails writes a fallback summary with
	// the server's error — which quotes the key.
	w.Run("-c", "-p", "/compact")
	if summaries == 0 {
		t.Fatal("no summary was asked for")
	}

	redacted := 0
	for _, path := range w.sessionFiles() {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, leak := range []string{w.Key, ghToken, npmToken} {
			if strings.Contains(string(data), leak) {
				t.Errorf("%s holds %q", path, leak)
			}
		}
		redacted += strings.Count(string(data), "[REDACTED]")
	}
	if redacted < 2 {
		t.Errorf("%d redactions in the session files; want the file's quote and the summary's error", redacted)
	}
	idx, _ := filepath.Glob(filepath.Join(w.projectsDir(), "*", "index.json"))
	for _, p := range idx {
		if data, _ := os.ReadFile(p); strings.Contains(string(data), w.Key) {
			t.Errorf("%s holds the key", p)
		}
	}
}

// TestConfiguredKeyVariableStaysHidden: the variable api_key_env names is
// kept from tools and out of /proc like OPENAI_API_KEY, whatever its name,
// and [tools] env_passthrough hands a chosen credential to commands.
func TestConfiguredKeyVariableStaysHidden(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(llmtest.Agent())
	const ghToken = "ghp_e2e_configured_passthrough_0123"
	w.ExtraEnv = append(w.ExtraEnv, "LLM_CREDENTIAL="+w.Key, "GITHUB_TOKEN="+ghToken)
	cfg := filepath.Join(w.Project, ".clawdcode", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("api_key_env = \"LLM_CREDENTIAL\"\n[tools]\nenv_passthrough = [\"GITHUB_TOKEN\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.MustRun("-p", "--trust-project", "--dangerously-skip-permissions",
		"bash tr '\\0' '\\n' < /proc/$PPID/environ\nbash env\n"+`bash test -n "$GITHUB_TOKEN" && echo gh-token-visible`)
	var outputs []string
	for _, m := range w.Server.LastRequest().Messages {
		if m.Role == chat.RoleTool {
			outputs = append(outputs, m.Content)
		}
	}
	if len(outputs) != 3 {
		t.Fatalf("want 3 tool results, got %q", outputs)
	}
	for i, out := range outputs[:2] {
		for _, leak := range []string{w.Key, "LLM_CREDENTIAL="} {
			if strings.Contains(out, leak) {
				t.Errorf("command %d saw %q", i+1, leak)
			}
		}
	}
	if !strings.Contains(outputs[2], "gh-token-visible") {
		t.Errorf("[tools] env_passthrough did not hand GITHUB_TOKEN over: %q", outputs[2])
	}
	for _, r := range w.Server.Requests() {
		if r.Authorization != "Bearer "+w.Key {
			t.Fatalf("the configured key was not used: %q", r.Authorization)
		}
	}
}

// TestServerErrorQuotingTheKeyIsRedacted: a server's error that quotes the
// key (a careless proxy's 401) is printed — the error line, the json
// result — with the key redacted: both end up in CI logs.
func TestServerErrorQuotingTheKeyIsRedacted(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.Enqueue(keyEcho(401, w.Key))
	r := w.Run("-p", "--output-format", "json", "hello")
	if r.Code != 1 {
		t.Fatalf("want exit 1\n%s", r)
	}
	if strings.Contains(r.Stdout, w.Key) || strings.Contains(r.Stderr, w.Key) {
		t.Errorf("the key was printed\n%s", r)
	}
	if !strings.Contains(r.Stderr, "[REDACTED]") || !strings.Contains(r.Stdout, "[REDACTED]") {
		t.Errorf("the server's message is not shown with the key redacted\n%s", r)
	}
}

// TestKeyInFirstMessageStaysOffDiskAndScreen: a user who pastes the key in
// the first message ("my key is sk-… remember it") got it back on disk in
// index.json (the session's title) and on screen from sessions
// list/show/export; and `-p /compact`, whose summary call failed with an
// error quoting the key, printed the raw key on stdout. Every file under
// CLAWDCODE_HOME and every byte printed is now free of it.
func TestKeyInFirstMessageStaysOffDiskAndScreen(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Key = "sk-qa-SECRET-123" // short: the whole message fits in a title
	agent := llmtest.Agent()
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		if isSummaryRequest(r) {
			return keyEcho(500, w.Key)
		}
		return agent(r)
	})
	var printed []result
	printed = append(printed, w.MustRun("-p", "my key is "+w.Key+" remember it"))
	// A title is cut to its first words: a key at the cut must not leave
	// its first half behind.
	printed = append(printed, w.MustRun("-p", "use /srv/"+strings.Repeat("x", 44)+"/"+w.Key+"/conf please"))
	leaks := []string{w.Key, w.Key[:9]}
	ids := w.sessionFiles()
	if len(ids) != 2 {
		t.Fatalf("want 2 sessions, got %d", len(ids))
	}
	var id string
	for i := range ids {
		id = i
	}
	printed = append(printed, w.Run("-c", "-p", "/compact"))
	printed = append(printed, w.Run("-c", "-p", "/new "+w.Key+" titled"))
	for _, args := range [][]string{
		{"sessions", "list"},
		{"sessions", "list", "--json"},
		{"sessions", "show", id},
		{"sessions", "export", id},
	} {
		printed = append(printed, w.Run(args...))
	}
	for _, r := range printed {
		for _, leak := range leaks {
			if strings.Contains(r.Stdout, leak) || strings.Contains(r.Stderr, leak) {
				t.Errorf("%q was printed\n%s", leak, r)
			}
		}
	}
	if !strings.Contains(printed[2].Stdout+printed[2].Stderr, "[REDACTED]") {
		t.Errorf("/compact did not show the server's error, redacted\n%s", printed[2])
	}
	err := filepath.WalkDir(w.Home, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, leak := range leaks {
			if strings.Contains(string(data), leak) {
				t.Errorf("%s holds %q:\n%.600s", path, leak, data)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestKeyInAnOldIndexIsNotShown: an index.json written before titles were
// redacted still holds the key; sessions list shows it redacted, and the
// next write of the index leaves it out.
func TestKeyInAnOldIndexIsNotShown(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(llmtest.Agent())
	w.MustRun("-p", "hello there")
	idx, _ := filepath.Glob(filepath.Join(w.projectsDir(), "*", "index.json"))
	if len(idx) != 1 {
		t.Fatalf("want one index, got %q", idx)
	}
	data, err := os.ReadFile(idx[0])
	if err != nil {
		t.Fatal(err)
	}
	old := strings.ReplaceAll(string(data), `"title":"hello there"`, `"title":"my key is `+w.Key+`"`)
	if old == string(data) {
		t.Fatalf("no title to replace in %s", data)
	}
	if err := os.WriteFile(idx[0], []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"sessions", "list"}, {"sessions", "list", "--json"}} {
		r := w.MustRun(args...)
		if strings.Contains(r.Stdout+r.Stderr, w.Key) || !strings.Contains(r.Stdout, "my key is [REDACTED]") {
			t.Errorf("clawdcode %q:\n%s", args, r)
		}
	}
	w.MustRun("-c", "-p", "more")
	if data, _ := os.ReadFile(idx[0]); strings.Contains(string(data), w.Key) {
		t.Errorf("the rewritten index still holds the key:\n%s", data)
	}
}
