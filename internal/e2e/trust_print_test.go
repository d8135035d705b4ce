package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// hostileRepo is a cloned repository whose .clawdcode/config.toml asks for
// everything that needs trust: a hook and an MCP server that each leave a
// marker when they run, Bash allowed, the key sent to the repository's own
// server (repo), and GITHUB_TOKEN chosen as that key. The user's own
// config.toml points at the user's server (w.Server), and OPENAI_BASE_URL
// is unset, as it is for most users: the file's base_url would win.
type hostileRepo struct {
	w               *world
	repo            *llmtest.Server
	hookMark, mcpMk string
	configPath      string
}

const hostileToken = "ghp-HOSTILE-TEST-TOKEN-0451"

func newHostileRepo(t *testing.T) *hostileRepo {
	t.Helper()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(llmtest.Agent())
	h := &hostileRepo{w: w, repo: llmtest.NewServer(t, llmtest.Options{}),
		hookMark: filepath.Join(w.Tmp, "hook-ran"), mcpMk: filepath.Join(w.Tmp, "mcp-ran"),
		configPath: filepath.Join(w.Project, ".clawdcode", "config.toml")}
	h.repo.SetResponder(llmtest.Agent())
	w.ExtraEnv = append(w.ExtraEnv, "OPENAI_BASE_URL=", "GITHUB_TOKEN="+hostileToken)
	if err := os.MkdirAll(w.Home, 0o700); err != nil {
		t.Fatal(err)
	}
	user := fmt.Sprintf("base_url = %q\n", w.Server.URL())
	if err := os.WriteFile(filepath.Join(w.Home, "config.toml"), []byte(user), 0o600); err != nil {
		t.Fatal(err)
	}
	w.writeConfig(harness.HostileProjectConfig(h.repo.URL(), h.mcpMk, h.hookMark))
	return h
}

// ran reports whether the hook and the MCP server's command ran.
func (h *hostileRepo) ran() (hook, mcp bool) {
	_, herr := os.Stat(h.hookMark)
	_, merr := os.Stat(h.mcpMk)
	return herr == nil, merr == nil
}

func (h *hostileRepo) exists(name string) bool {
	_, err := os.Stat(filepath.Join(h.w.Project, name))
	return err == nil
}

// checkIgnored holds a run to "the file's risky keys were ignored": nothing
// of the file ran, the repository's server saw nothing, the touch was not
// allowed, and stderr said so in one line naming the file and the flag.
func (h *hostileRepo) checkIgnored(t *testing.T, what string, r result, touched string) {
	t.Helper()
	if hook, mcp := h.ran(); hook || mcp {
		t.Errorf("%s: the untrusted hook ran: %v, MCP command ran: %v\n%s", what, hook, mcp, r)
	}
	if n := len(h.repo.Requests()) + h.repo.MetadataRequests(); n != 0 {
		t.Errorf("%s: the repository's base_url got %d requests", what, n)
	}
	if h.exists(touched) {
		t.Errorf("%s: Bash ran under the untrusted allow rule", what)
	}
	for _, req := range h.w.Server.Requests() {
		if strings.Contains(req.Authorization, hostileToken) {
			t.Errorf("%s: GITHUB_TOKEN was sent as the key (api_key_env obeyed)", what)
		}
	}
	var warnings []string
	for _, line := range strings.Split(r.Stderr, "\n") {
		if strings.Contains(line, "not trusted") {
			warnings = append(warnings, line)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], h.configPath) || !strings.Contains(warnings[0], "--trust-project") {
		t.Errorf("%s: want one warning line naming %s and --trust-project, got %q\n%s", what, h.configPath, warnings, r)
	}
}

// TestPrintIgnoresAnUntrustedProjectFile: `clawdcode -p` in a cloned
// repository ran the repository's hooks and MCP command, obeyed its allow
// rule and sent the GITHUB_TOKEN it chose to the server it named. Nobody
// can answer the trust question there, so those keys are ignored with one
// warning; --trust-project applies them, and so does a yes given in the
// REPL before. A REPL whose stdin is a pipe cannot answer either.
func TestPrintIgnoresAnUntrustedProjectFile(t *testing.T) {
	t.Parallel()
	h := newHostileRepo(t)
	w := h.w

	r := w.MustRun("-p", "bash touch by-print.txt")
	h.checkIgnored(t, "-p", r, "by-print.txt")
	if len(w.Server.Requests()) == 0 || w.Server.LastRequest().Authorization != "Bearer "+w.Key {
		t.Errorf("-p: the user's own server and key were not used")
	}

	ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
	defer cancel()
	cmd := w.Command(ctx)
	cmd.Stdin = strings.NewReader("bash touch by-pipe.txt\n")
	r = harness.Wait(t, ctx, cmd)
	if r.Code != 0 || strings.Contains(r.Stderr, "Trust this file?") {
		t.Errorf("echo ... | clawdcode: asked, or failed\n%s", r)
	}
	h.checkIgnored(t, "piped REPL", r, "by-pipe.txt")

	// --trust-project: the file applies in full, for this run only.
	served := len(w.Server.Requests())
	r = w.MustRun("-p", "--trust-project", "bash touch by-flag.txt")
	if hook, mcp := h.ran(); !hook || !mcp || !h.exists("by-flag.txt") || strings.Contains(r.Stderr, "not trusted") {
		t.Errorf("--trust-project: hook ran %v, MCP ran %v, Bash allowed %v\n%s", hook, mcp, h.exists("by-flag.txt"), r)
	}
	if len(h.repo.Requests()) == 0 || h.repo.LastRequest().Authorization != "Bearer "+hostileToken || len(w.Server.Requests()) != served {
		t.Errorf("--trust-project: base_url and api_key_env did not apply")
	}
	if _, err := os.Stat(filepath.Join(w.Home, "trusted-projects.json")); err == nil {
		t.Errorf("--trust-project put the file on record as trusted")
	}
	r = w.MustRun("-p", "hi")
	if !strings.Contains(r.Stderr, "not trusted") {
		t.Errorf("the flag's trust outlived its run\n%s", r)
	}

	// A yes in the REPL is remembered, and -p honours it.
	term := w.startREPL(w.Command(ctx))
	term.expect("Trust this file?")
	term.send("y\r")
	term.expect("> ")
	term.send("/exit\r")
	if code := term.wait(); code != 0 {
		t.Fatalf("REPL: exit %d", code)
	}
	os.Remove(h.hookMark)
	os.Remove(h.mcpMk)
	r = w.MustRun("-p", "bash touch by-record.txt")
	if hook, mcp := h.ran(); !hook || !mcp || !h.exists("by-record.txt") || strings.Contains(r.Stderr, "not trusted") {
		t.Errorf("trusted before: hook ran %v, MCP ran %v, Bash allowed %v\n%s", hook, mcp, h.exists("by-record.txt"), r)
	}
}
