package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestProjectConfigNeedsTrustInTheREPL: a cloned repository's
// .clawdcode/config.toml started its MCP server's command and allowed
// itself Bash the moment the REPL opened. Now the interactive session asks
// first, listing what the file asks for: no (the default) leaves the
// command unrun and the rule unapplied, and is remembered; a changed file
// is asked about again; yes applies it and is not asked again.
func TestProjectConfigNeedsTrustInTheREPL(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(llmtest.Agent())
	marker := filepath.Join(w.Tmp, "server-started")
	config := "[permissions]\nallow = [\"Bash\"]\n\n[mcp_servers.probe]\ncommand = \"sh\"\nargs = [\"-c\", \"echo started >> " + marker + "\"]\n"
	w.writeConfig(config)
	starts := func() int {
		data, _ := os.ReadFile(marker)
		return strings.Count(string(data), "started")
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(w.Project, name))
		return err == nil
	}

	const printStarts = 0 // -p and piped runs: TestPrintIgnoresAnUntrustedProjectFile

	repl := func() *terminal {
		ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
		t.Cleanup(cancel)
		return w.startREPL(w.Command(ctx))
	}
	leave := func(term *terminal) {
		term.expect("> ")
		term.send("/exit\r")
		if code := term.wait(); code != 0 {
			t.Fatalf("REPL: exit %d", code)
		}
	}

	// First start: asked; the default (Enter) is no.
	term := repl()
	term.expect("asks to:")
	term.expect("start MCP server \"probe\": sh -c echo started")
	term.expect("allow without asking: Bash")
	term.expect("Trust this file?")
	term.send("\r")
	term.expect("is not trusted: its mcp_servers, permissions.allow are ignored")
	term.expect("> ")
	term.send("bash touch by-repl.txt\r")
	term.expect("No, tell the model") // Bash is asked about: the rule did not apply
	term.send("n\r")                  // no, and an empty note: a plain no
	leave(term)
	if starts() != printStarts || exists("by-repl.txt") {
		t.Errorf("untrusted: the server started %d times (-p: %d), by-repl.txt exists: %v", starts(), printStarts, exists("by-repl.txt"))
	}

	// Second start: the no is remembered for this content.
	term = repl()
	term.expect("is not trusted")
	leave(term)
	if out := term.output(); strings.Contains(out, "Trust this file?") {
		t.Errorf("asked again about an unchanged file:\n%s", out)
	}

	// A changed file is asked about again; yes applies it.
	w.writeConfig("# changed\n" + config)
	term = repl()
	term.expect("Trust this file?")
	term.send("y\r")
	term.expect("> ")
	term.send("bash touch by-repl.txt\r")
	term.expect("Tool results:")
	leave(term)
	if starts() != printStarts+1 || !exists("by-repl.txt") {
		t.Errorf("trusted: the server started %d times (want %d), by-repl.txt exists: %v", starts(), printStarts+1, exists("by-repl.txt"))
	}
	if out := term.output(); strings.Contains(out, "No, tell the model") {
		t.Errorf("a trusted allow rule still asked:\n%s", out)
	}

	// And yes is remembered.
	term = repl()
	leave(term)
	if out := term.output(); strings.Contains(out, "Trust this file?") || strings.Contains(out, "not trusted") {
		t.Errorf("asked again about a trusted file:\n%s", out)
	}
	if starts() != printStarts+2 {
		t.Errorf("the trusted server started %d times, want %d", starts(), printStarts+2)
	}
	info, err := os.Stat(filepath.Join(w.Home, "trusted-projects.json"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("trusted-projects.json: %v, mode %v", err, info)
	}
}

// output is everything the terminal showed so far.
func (term *terminal) output() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.out.String()
}

// TestAlwaysInThisProjectStaysTrusted: the rule an "always in this
// project" answer saves changes the project file; that is the user's own
// doing, so the next start does not ask about the file again.
func TestAlwaysInThisProjectStaysTrusted(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(llmtest.Agent())
	w.writeConfig("model = \"gpt-4o\"\n")
	for i, answer := range []string{"p", ""} {
		ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
		defer cancel()
		term := w.startREPL(w.Command(ctx))
		term.expect("> ")
		term.send("bash echo hi\r")
		if answer != "" {
			term.expect("in this project")
			term.send(answer)
		}
		term.expect("Tool results:")
		term.expect("> ")
		term.send("/exit\r")
		if code := term.wait(); code != 0 {
			t.Fatalf("REPL: exit %d", code)
		}
		if out := term.output(); strings.Contains(out, "Trust this file?") || strings.Contains(out, "not trusted") {
			t.Errorf("start %d asked about the file the user's own answer changed:\n%s", i+1, out)
		}
	}
	// -p, which cannot ask, honours the rule too: the file is trusted on record.
	r := w.MustRun("-p", "bash echo hi there")
	if strings.Contains(r.Stderr, "not trusted") || strings.Contains(r.Stdout, "denied") {
		t.Errorf("-p did not honour the rule the user saved:\n%s", r)
	}
}

// TestFirstTrustAnswerInAFreshHomeIsRemembered: in a CLAWDCODE_HOME that
// did not exist yet, the first answer was written before the home was, so
// it was lost with a second warning about the file, and asked again at the
// next start. Now the home is made for it: one warning, and no second
// question.
func TestFirstTrustAnswerInAFreshHomeIsRemembered(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.writeConfig("[permissions]\nallow = [\"Bash\"]\n")
	if _, err := os.Stat(w.Home); err == nil {
		t.Fatal("the home exists before the first run")
	}
	config := filepath.Join(w.Project, ".clawdcode", "config.toml")
	for i, answer := range []string{"n\r", ""} {
		ctx, cancel := context.WithTimeout(context.Background(), harness.RunTimeout)
		defer cancel()
		term := w.startREPL(w.Command(ctx))
		if answer != "" {
			term.expect("Trust this file?")
			term.send(answer)
		}
		term.expect("> ")
		term.send("/exit\r")
		if code := term.wait(); code != 0 {
			t.Fatalf("start %d: exit %d", i+1, code)
		}
		out := term.output()
		if i > 0 && strings.Contains(out, "Trust this file?") {
			t.Errorf("the first answer was not remembered: asked again\n%s", out)
		}
		var warnings int
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "warning:") && strings.Contains(line, config) {
				warnings++
			}
		}
		if warnings != 1 || !strings.Contains(out, "is not trusted") {
			t.Errorf("start %d: %d warning lines about %s, want the one saying it is not trusted\n%s", i+1, warnings, config, out)
		}
	}
}
