package memory

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
	"github.com/clawdcode/clawdcode/internal/memory"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// systemOfLast is the system message of the last request the server got.
func (w *world) systemOfLast() string {
	w.T.Helper()
	reqs := w.Server.Requests()
	if len(reqs) == 0 {
		w.T.Fatal("no request")
	}
	msgs := reqs[len(reqs)-1].Messages
	if len(msgs) == 0 || msgs[0].Role != "system" {
		w.T.Fatalf("the last request has no system message: %+v", msgs)
	}
	return msgs[0].Content
}

// TestMemoryReachesTheNextSessionOfItsProjectOnly (CONTRACT §11): a memory
// added as the -p prompt is in the first request of the project's next
// session, with its source, and in no other project's; a user memory is in
// both; a memory that names a file the project does not have is not sent
// and /memory shows it stale with the reason.
func TestMemoryReachesTheNextSessionOfItsProjectOnly(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.writeFile("fixtures.txt", "x")
	w.MustRun("-p", "/memory add Test data lives in fixtures.txt, never in the code")
	w.MustRun("-p", "/memory add The parser is in ./parser_old.go")
	w.MustRun("-p", "/memory add --user Answer in British English")

	list := w.MustRun("-p", "/memory").Stdout
	for _, want := range []string{
		"Project memories:\n1. Test data lives in fixtures.txt, never in the code\n   (project, typed by the user)",
		"2. The parser is in ./parser_old.go\n   stale: parser_old.go does not exist (not given to the model)",
		"User memories:\n3. Answer in British English\n   (user, typed by the user)",
	} {
		if !strings.Contains(list, want) {
			t.Errorf("/memory lacks %q:\n%s", want, list)
		}
	}

	w.MustRun("-p", "hello")
	sys := w.systemOfLast()
	if !strings.Contains(sys, "- [project, typed by the user] Test data lives in fixtures.txt, never in the code") ||
		!strings.Contains(sys, "- [user, typed by the user] Answer in British English") {
		t.Errorf("the next session's first request lacks the memories:\n%s", sys)
	}
	if strings.Contains(sys, "parser_old.go") {
		t.Errorf("a stale memory was sent:\n%s", sys)
	}
	if !strings.Contains(sys, "1 stale memory was withheld") {
		t.Errorf("the prompt does not say a stale memory was withheld:\n%s", sys)
	}

	other := filepath.Join(w.Root, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := w.RunIn(other, "-p", "hello"); r.Code != 0 {
		t.Fatalf("other project: %s", r)
	}
	sys = w.systemOfLast()
	if strings.Contains(sys, "fixtures.txt") {
		t.Errorf("another project's session got this project's memory:\n%s", sys)
	}
	if !strings.Contains(sys, "Answer in British English") {
		t.Errorf("another project's session lacks the user's memory:\n%s", sys)
	}

	// Once the file exists the memory is no longer stale: it is sent.
	w.writeFile("parser_old.go", "package p")
	w.MustRun("-p", "hello")
	if sys := w.systemOfLast(); !strings.Contains(sys, "The parser is in ./parser_old.go") {
		t.Errorf("a memory whose file came back is not sent:\n%s", sys)
	}
}

// TestPassingTestCommandIsSuggestedNotSentUntilAccepted: the command that
// ran the tests successfully is suggested at the end of the session, with
// the refs of the passing call and its result; a failing one is not; the
// suggestion is in no request until accepted, and then in the next
// session's first one.
func TestPassingTestCommandIsSuggestedNotSentUntilAccepted(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.writeFile("Makefile", "test:\n\t@echo all tests pass\ncheck:\n\t@echo broken; exit 1\n")

	r := w.MustRun("-p", "bash make check", "--allowed-tools", "Bash")
	if strings.Contains(r.Stderr, "suggested") || strings.Contains(w.MustRun("-p", "/memory").Stdout, "make check") {
		t.Fatalf("a failing test command was suggested:\n%s", r)
	}

	r = w.MustRun("-p", "bash make test", "--allowed-tools", "Bash")
	if !strings.Contains(r.Stderr, "clawdcode: 1 memory suggested from this session (not given to the model until you accept it): see /memory") {
		t.Fatalf("no note of the suggestion on stderr:\n%s", r)
	}
	call, result := passingRun(t, w, "make test")
	list := w.MustRun("-p", "/memory").Stdout
	want := "Suggestions (not given to the model until accepted: /memory accept <n>, /memory reject <n>):\n" +
		"1. Run the tests with `make test`\n   (derived from the session's records " + call[:8] + " " + result[:8] + ")"
	if !strings.Contains(list, want) {
		t.Fatalf("/memory lacks %q:\n%s", want, list)
	}

	w.MustRun("-p", "hello")
	if sys := w.systemOfLast(); strings.Contains(sys, "make test") {
		t.Fatalf("a suggestion was sent before it was accepted:\n%s", sys)
	}

	out := w.MustRun("-p", "/memory accept 1").Stdout
	if !strings.Contains(out, "Remembered (project): Run the tests with `make test`") {
		t.Fatalf("/memory accept 1: %q", out)
	}
	w.MustRun("-p", "hello")
	sys := w.systemOfLast()
	if !strings.Contains(sys, "- [project, accepted from clawdcode's suggestion, from records "+call+" "+result+"] Run the tests with `make test`") {
		t.Fatalf("the accepted memory is not in the next session's first request with its refs:\n%s", sys)
	}
}

// passingRun finds the uuids of the Bash call running command and of its
// result in the project's sessions.
func passingRun(t *testing.T, w *world, command string) (call, result string) {
	t.Helper()
	for _, path := range w.sessions() {
		calls := map[string]string{}
		for _, r := range records(t, path) {
			switch {
			case r.Type == storage.TypeToolUse && r.Tool != nil && r.Tool.Name == "Bash":
				var in struct{ Command string }
				_ = json.Unmarshal(r.Tool.Input, &in)
				if in.Command == command {
					calls[r.Tool.ID] = r.UUID
				}
			case r.Type == storage.TypeToolResult && r.ToolResult != nil && calls[r.ToolResult.ID] != "":
				return calls[r.ToolResult.ID], r.UUID
			}
		}
	}
	t.Fatalf("no Bash call of %q with a result", command)
	return "", ""
}

// TestMemorySuggestAsksTheModelOnlyWhenAsked: /memory suggest adds the
// model's candidate, labelled as the model's, pending like any other.
func TestMemorySuggestAsksTheModelOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	base := w.responder()
	var asked atomic.Int32
	w.Server.SetResponder(func(r llmtest.Request) llmtest.Reply {
		if len(r.Messages) > 0 && r.Messages[0].Content == memory.AskPrompt {
			asked.Add(1)
			return llmtest.Text("Regenerate the mocks with `make mocks` after changing an interface")
		}
		return base(r)
	})
	w.MustRun("-p", "hello")
	if asked.Load() != 0 {
		t.Fatal("the model was asked for a memory unasked")
	}
	if r := w.Run("-p", "/memory suggest"); r.Code != 2 || !strings.Contains(r.Stderr, "needs a session") {
		t.Fatalf("/memory suggest without a session: %s", r)
	}
	out := w.MustRun("-c", "-p", "/memory suggest").Stdout
	if asked.Load() != 1 || !strings.Contains(out, "Suggested by the model (not given to it until accepted: /memory accept 1, /memory reject 1):\nRegenerate the mocks") {
		t.Fatalf("/memory suggest (asked %d): %q", asked.Load(), out)
	}
	if list := w.MustRun("-p", "/memory").Stdout; !strings.Contains(list, "1. Regenerate the mocks with `make mocks` after changing an interface\n   (written by the model)") {
		t.Fatalf("/memory:\n%s", list)
	}
	w.MustRun("-p", "hello")
	if sys := w.systemOfLast(); strings.Contains(sys, "mocks") {
		t.Fatalf("the model's suggestion was sent before it was accepted:\n%s", sys)
	}
}
