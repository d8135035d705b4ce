package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/iostreams"
)

// hostile is model text that would write the user's clipboard (OSC 52),
// clear the screen and hide what follows, were a terminal to obey it.
const hostile = "done\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x1b[8mhidden\u009b31m"

func checkShown(t *testing.T, where, got string) {
	t.Helper()
	if strings.ContainsAny(got, "\x1b\x07\u009b") {
		t.Errorf("%s reaches the terminal with control characters intact: %q", where, got)
	}
	if !strings.Contains(got, "^[]52;c;cm0gLXJmIH4=^G") || !strings.Contains(got, "<U+009B>31m") {
		t.Errorf("%s does not show the escape sequences as text: %q", where, got)
	}
}

// TestSessionsShowShowsEscapesAsText: issue 14 item 9, `sessions show`
// printed model text with its escape sequences intact.
func TestSessionsShowShowsEscapesAsText(t *testing.T) {
	t.Parallel()
	env := newSessionsEnv(t, "run it\x1b[8m", hostile)
	for _, tty := range []bool{true, false} {
		ios, _, out, errOut := iostreams.Test()
		ios.SetTTY(false, tty, tty)
		if code := env.run(t, ios, "sessions", "show", env.id); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		checkShown(t, "sessions show", out.String())
	}
}

// TestSessionsExportMarkdownSafeOnATerminal: markdown read on a terminal
// is made safe; redirected, it is data and keeps its bytes.
func TestSessionsExportMarkdownSafeOnATerminal(t *testing.T) {
	t.Parallel()
	env := newSessionsEnv(t, "run it", hostile)
	ios, _, out, errOut := iostreams.Test()
	ios.SetTTY(false, true, true)
	if code := env.run(t, ios, "sessions", "export", env.id); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkShown(t, "sessions export to a terminal", out.String())

	ios, _, out, _ = iostreams.Test()
	if code := env.run(t, ios, "sessions", "export", env.id); code != 0 {
		t.Fatal("export to a file failed")
	}
	if !strings.Contains(out.String(), hostile) {
		t.Errorf("export to a file changed the session's bytes: %q", out)
	}
}

// TestPrintAnswerSafeOnATerminal: -p's answer is shown, not obeyed, on a
// terminal, and keeps its bytes when redirected.
func TestPrintAnswerSafeOnATerminal(t *testing.T) {
	t.Parallel()
	for _, tty := range []bool{true, false} {
		ios, _, out, _ := iostreams.Test()
		ios.SetTTY(false, tty, false)
		s := newPrintSink(ios, FormatText, nil)
		s.finish(Result{Result: hostile}, time.Now())
		if tty {
			checkShown(t, "-p answer on a terminal", out.String())
		} else if out.String() != hostile+"\n" {
			t.Errorf("-p answer redirected = %q, want the exact bytes", out)
		}
	}
}

// TestErrorLineShowsEscapesAsText: a server's error body quoted in the one
// error line cannot drive the terminal either.
func TestErrorLineShowsEscapesAsText(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	Failure{Code: ExitError, Message: "server said: " + hostile}.Print(&b)
	checkShown(t, "the error line", b.String())
}

// TestSearchSnippetsShowEscapesAsText: search snippets quote session
// content, so they are made safe like sessions show (issue 14 item 9).
func TestSearchSnippetsShowEscapesAsText(t *testing.T) {
	t.Parallel()
	env := newSessionsEnv(t, "where is the needle", "the needle is here "+hostile)
	ios, _, out, errOut := iostreams.Test()
	if code := env.run(t, ios, "search", "needle"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out.String(), "needle") {
		t.Fatalf("no hit: %q", out)
	}
	if strings.ContainsAny(out.String(), "\x1b\x07\u009b") {
		t.Errorf("search printed control characters: %q", out)
	}
}
