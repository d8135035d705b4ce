package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) add(m string) { w.mu.Lock(); w.msgs = append(w.msgs, m); w.mu.Unlock() }

func runner(t *testing.T, hooks ...Hook) (*Runner, *warnings, string) {
	t.Helper()
	dir := t.TempDir()
	w := &warnings{}
	for _, h := range hooks {
		if err := Validate(h); err != nil {
			t.Fatal(err)
		}
	}
	return New(hooks, dir, []string{"PATH=/usr/bin:/bin"}, w.add), w, dir
}

var common = Common{SessionID: "s-1", TranscriptPath: "/h/s-1.jsonl", Cwd: "/p"}

func TestPayloadOnStdin(t *testing.T) {
	t.Parallel()
	r, w, dir := runner(t, Hook{Event: PreToolUse, Matcher: "Bash|Write", Command: "cat > payload.json"})
	out := r.Run(context.Background(), PreToolUse, "Bash", common, Payload{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}})
	if out.Block || len(w.msgs) != 0 {
		t.Fatalf("outcome %+v warnings %q", out, w.msgs)
	}
	data, err := os.ReadFile(filepath.Join(dir, "payload.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	if p["hook_event_name"] != "PreToolUse" || p["session_id"] != "s-1" || p["tool_name"] != "Bash" || p["cwd"] != "/p" {
		t.Fatalf("payload %s", data)
	}
	// The matcher is a whole-name regexp: Read does not match.
	os.Remove(filepath.Join(dir, "payload.json"))
	r.Run(context.Background(), PreToolUse, "Read", common, nil)
	if _, err := os.Stat(filepath.Join(dir, "payload.json")); err == nil {
		t.Fatal("the hook ran for a tool its matcher does not name")
	}
}

func TestPreToolUseBlocks(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"exit 2":       `echo "no rm in this repo" >&2; exit 2`,
		"json deny":    `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm in this repo"}}'`,
		"legacy block": `echo '{"decision":"block","reason":"no rm in this repo"}'`,
	}
	for name, cmd := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, w, _ := runner(t, Hook{Event: PreToolUse, Command: cmd})
			out := r.Run(context.Background(), PreToolUse, "Bash", common, nil)
			if !out.Block || out.Reason != "no rm in this repo" || len(w.msgs) != 0 {
				t.Fatalf("outcome %+v warnings %q", out, w.msgs)
			}
		})
	}
}

func TestFailuresAreReportedNeverFatal(t *testing.T) {
	t.Parallel()
	r, w, _ := runner(t,
		Hook{Event: SessionStart, Command: "echo broken >&2; exit 7"},
		Hook{Event: SessionStart, Command: "sleep 300", Timeout: 200 * time.Millisecond},
		Hook{Event: SessionStart, Command: "/nonexistent/hook"},
		Hook{Event: SessionStart, Command: "echo fine"},
	)
	start := time.Now()
	out := r.Run(context.Background(), SessionStart, "", common, Payload{"source": "startup"})
	// A safety net, not a measure: the hook alone would hold it 300 s.
	if time.Since(start) > time.Minute {
		t.Fatalf("a timed-out hook held the session for %v", time.Since(start))
	}
	if out.Block || out.Context != "fine" {
		t.Fatalf("outcome %+v", out)
	}
	joined := strings.Join(w.msgs, "\n")
	if len(w.msgs) != 3 || !strings.Contains(joined, "exit status 7: broken") || !strings.Contains(joined, "timed out after 200ms") {
		t.Fatalf("warnings %q", w.msgs)
	}
}

func TestPreCompactText(t *testing.T) {
	t.Parallel()
	r, _, _ := runner(t, Hook{Event: PreCompact, Command: "echo keep the migration plan"})
	if out := r.Run(context.Background(), PreCompact, "", common, Payload{"trigger": "auto"}); out.Context != "keep the migration plan" {
		t.Fatalf("outcome %+v", out)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	for _, h := range []Hook{{Event: "PostToolUsed", Command: "x"}, {Event: Stop}, {Event: PreToolUse, Matcher: "(", Command: "x"}} {
		if Validate(h) == nil {
			t.Errorf("Validate(%+v) accepted it", h)
		}
	}
}

// TestBlockingEvents: a block of an event whose block does something is
// the caller's to act on, not a warning; plain stdout is read only where
// the model reads it (Claude Code's rules).
func TestBlockingEvents(t *testing.T) {
	t.Parallel()
	for _, event := range []string{PostToolUse, UserPromptSubmit, SubagentStop} {
		for name, cmd := range map[string]string{
			"exit 2": `echo "run the linter first" >&2; exit 2`,
			"json":   `echo '{"decision":"block","reason":"run the linter first"}'`,
		} {
			r, w, _ := runner(t, Hook{Event: event, Command: cmd})
			out := r.Run(context.Background(), event, "Edit", common, nil)
			if !out.Block || out.Reason != "run the linter first" || len(w.msgs) != 0 {
				t.Errorf("%s %s: outcome %+v warnings %q", event, name, out, w.msgs)
			}
		}
	}
	r, w, _ := runner(t, Hook{Event: Notification, Command: "echo nope >&2; exit 2"})
	if out := r.Run(context.Background(), Notification, "", common, nil); out.Block || len(w.msgs) != 1 {
		t.Errorf("Notification: outcome %+v warnings %q", out, w.msgs)
	}
	for event, want := range map[string]string{UserPromptSubmit: "the date is today", PostToolUse: ""} {
		r, _, _ := runner(t, Hook{Event: event, Command: "echo the date is today"})
		if out := r.Run(context.Background(), event, "Edit", common, nil); out.Context != want {
			t.Errorf("%s plain stdout: context %q, want %q", event, out.Context, want)
		}
	}
	r, _, _ = runner(t, Hook{Event: PostToolUse, Command: `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"formatted with gofmt"}}'`})
	if out := r.Run(context.Background(), PostToolUse, "Edit", common, nil); out.Block || out.Context != "formatted with gofmt" {
		t.Errorf("PostToolUse additionalContext: outcome %+v", out)
	}
}

// TestMatcherIsForToolEvents: a matcher chooses among tools; an event
// without a tool runs its hooks whatever their matcher.
func TestMatcherIsForToolEvents(t *testing.T) {
	t.Parallel()
	r, _, _ := runner(t, Hook{Event: PostToolUse, Matcher: "Write|Edit", Command: "echo '{\"decision\":\"block\",\"reason\":\"x\"}'"},
		Hook{Event: UserPromptSubmit, Matcher: "Bash", Command: "echo context"})
	if out := r.Run(context.Background(), PostToolUse, "Bash", common, nil); out.Block {
		t.Error("a PostToolUse hook matching Write|Edit ran for Bash")
	}
	if out := r.Run(context.Background(), PostToolUse, "Edit", common, nil); !out.Block {
		t.Error("a PostToolUse hook matching Write|Edit did not run for Edit")
	}
	if out := r.Run(context.Background(), UserPromptSubmit, "", common, nil); out.Context != "context" {
		t.Errorf("UserPromptSubmit with a matcher: %+v", out)
	}
}

// TestHooksDoNotSeeCredentials: a hook is a child like a tool's command;
// without an environment from the caller, the user's credentials stay out
// of its environment (issue 13 item 1).
func TestHooksDoNotSeeCredentials(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-hook-test-0123456789")
	t.Setenv("GITHUB_TOKEN", "ghp-hook")
	dir := t.TempDir()
	r := New([]Hook{{Event: PreCompact, Command: "env > env.txt"}}, dir, nil, nil)
	r.Run(context.Background(), PreCompact, "", common, nil)
	data, err := os.ReadFile(filepath.Join(dir, "env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "sk-hook-test") || strings.Contains(string(data), "ghp-hook") || !strings.Contains(string(data), "PATH=") {
		t.Fatalf("a hook's environment:\n%s", data)
	}
}

// TestOutputIsCutWhereItIsRead: a hook's output past outputLimit is
// dropped as it is read, and the omission marker says so.
func TestOutputIsCutWhereItIsRead(t *testing.T) {
	t.Parallel()
	r, _, _ := runner(t, Hook{Event: PreToolUse, Command: "head -c 2000000 /dev/zero | tr '\\0' x >&2; exit 2"})
	out := r.Run(context.Background(), PreToolUse, "Bash", common, nil)
	if !out.Block || len(out.Reason) > outputLimit+100 || !strings.Contains(out.Reason, "omitted ...]") {
		t.Fatalf("block %v, reason of %d bytes", out.Block, len(out.Reason))
	}
}
