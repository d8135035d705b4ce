// Package hooks runs the user's commands at points of a session, the way
// Claude Code's hooks do, with its event names: SessionStart,
// UserPromptSubmit, PreToolUse, PostToolUse, Notification, SubagentStop,
// Stop, PreCompact and PostCompact. Each command gets one JSON object on
// stdin (the fields Claude Code sends where the event exists there:
// session_id, transcript_path, cwd, hook_event_name, and the event's own —
// prompt; tool_name, tool_input, tool_response; message; stop_hook_active)
// and answers through its exit status and output:
//
//   - exit 0: fine. Its stdout, if it is a JSON object, may carry a
//     decision ({"decision":"block","reason":…}; PreToolUse also
//     {"hookSpecificOutput":{"permissionDecision":"deny",
//     "permissionDecisionReason":…}}) or additional text
//     ({"hookSpecificOutput":{"additionalContext":…}}). Plain stdout is
//     additional text for the events whose output the model reads
//     (SessionStart, UserPromptSubmit; PreCompact: instructions for the
//     summary) and is ignored for the others, as in Claude Code.
//   - exit 2: a block, stderr its reason. What a block does is the
//     event's (Blocks): PreToolUse denies the call, PostToolUse gives the
//     reason to the model beside the result, UserPromptSubmit refuses the
//     prompt (the user reads why; nothing is recorded), SubagentStop keeps
//     the subagent going with the reason as its next instruction. For the
//     other events a block is only reported.
//   - any other failure (another status, a command that cannot start, a
//     timeout) is reported once per run as a warning and changes nothing:
//     a broken hook never breaks the session.
//
// A matcher (a regexp the name must match whole) applies to the tool
// events, PreToolUse and PostToolUse; the other events ignore it.
//
// Commands run with sh -c in the project directory, in their own process
// group, with the environment the tools' children get, and are killed at
// their timeout (default 60 s). When a hook exits its whole group is
// killed, so what it started in the background does not outlive it. Each
// of its streams is read into at most 64 KiB (head and tail, the middle
// replaced by the omission marker): a reason becomes part of the session.
package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/secrets"
)

// Events.
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	Notification     = "Notification"
	SubagentStop     = "SubagentStop"
	Stop             = "Stop"
	PreCompact       = "PreCompact"
	PostCompact      = "PostCompact"
)

// Events lists every event a hook may name.
var Events = []string{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Notification,
	SubagentStop, Stop, PreCompact, PostCompact}

// Blocks reports whether a block (exit 2, {"decision":"block"}) has an
// effect for event — the caller acts on Outcome.Block — rather than only
// being reported.
func Blocks(event string) bool {
	switch event {
	case PreToolUse, PostToolUse, UserPromptSubmit, SubagentStop:
		return true
	}
	return false
}

// toolEvent reports whether event's hooks are chosen by tool name.
func toolEvent(event string) bool { return event == PreToolUse || event == PostToolUse }

// readsStdout reports whether plain stdout of a successful hook of event
// is text for the model (or, PreCompact, for the summary).
func readsStdout(event string) bool {
	return event == SessionStart || event == UserPromptSubmit || event == PreCompact
}

// DefaultTimeout bounds a hook that names none.
const DefaultTimeout = 60 * time.Second

// Hook is one configured command.
type Hook struct {
	Event   string
	Matcher string // PreToolUse, PostToolUse: a regexp the tool name must match whole ("" or "*" = every tool)
	Command string
	Timeout time.Duration
}

// Runner runs the hooks of a session.
type Runner struct {
	hooks []Hook
	dir   string
	env   []string
	warn  func(string)
}

// New returns a runner for hooks (which Validate has accepted), running in
// dir with env — which the caller keeps credentials out of; nil = the
// process's without them (secrets.ChildEnv) — reporting problems through
// warn (nil = silently).
func New(hooks []Hook, dir string, env []string, warn func(string)) *Runner {
	return &Runner{hooks: hooks, dir: dir, env: env, warn: warn}
}

// Validate checks a hook as configured.
func Validate(h Hook) error {
	known := false
	for _, e := range Events {
		known = known || e == h.Event
	}
	if !known {
		return fmt.Errorf("unknown hook event %q (want one of %s)", h.Event, strings.Join(Events, ", "))
	}
	if strings.TrimSpace(h.Command) == "" {
		return fmt.Errorf("a %s hook has no command", h.Event)
	}
	if _, err := matcher(h.Matcher); err != nil {
		return fmt.Errorf("%s hook matcher %q: %w", h.Event, h.Matcher, err)
	}
	return nil
}

func matcher(m string) (*regexp.Regexp, error) {
	if m == "" || m == "*" {
		return nil, nil
	}
	return regexp.Compile("^(?:" + m + ")$")
}

// Has reports whether any hook is configured for event.
func (r *Runner) Has(event string) bool {
	if r == nil {
		return false
	}
	for _, h := range r.hooks {
		if h.Event == event {
			return true
		}
	}
	return false
}

// Outcome is what the hooks of one event decided.
type Outcome struct {
	// Block is set when a hook blocked, with its Reason (see Blocks for
	// what that does, event by event).
	Block  bool
	Reason string
	// Context is the additional text the hooks gave, joined.
	Context string
}

// Payload is the event's own fields, added to the common ones.
type Payload map[string]any

// Common are the fields every payload carries.
type Common struct {
	SessionID      string
	TranscriptPath string
	Cwd            string
	// PermissionMode is the mode in force ("" = not said).
	PermissionMode string
}

// Run runs the hooks of event whose matcher accepts tool (for events
// without a tool, tool is ""), one after another, and combines what they
// said: any block blocks.
func (r *Runner) Run(ctx context.Context, event, tool string, common Common, payload Payload) Outcome {
	var out Outcome
	if r == nil {
		return out
	}
	var contexts []string
	for _, h := range r.hooks {
		if h.Event != event {
			continue
		}
		if re, _ := matcher(h.Matcher); re != nil && toolEvent(event) && !re.MatchString(tool) {
			continue
		}
		res := r.runOne(ctx, h, common, payload)
		if res.Block {
			out.Block = true
			if out.Reason == "" {
				out.Reason = res.Reason
			}
		}
		if res.Context != "" {
			contexts = append(contexts, res.Context)
		}
	}
	out.Context = strings.Join(contexts, "\n")
	return out
}

func (r *Runner) runOne(ctx context.Context, h Hook, common Common, payload Payload) Outcome {
	body := map[string]any{
		"session_id":      common.SessionID,
		"transcript_path": common.TranscriptPath,
		"cwd":             common.Cwd,
		"hook_event_name": h.Event,
	}
	if common.PermissionMode != "" {
		body["permission_mode"] = common.PermissionMode
	}
	for k, v := range payload {
		body[k] = v
	}
	in, _ := json.Marshal(body)
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.Command("sh", "-c", h.Command)
	cmd.Dir = r.dir
	// A hook is a child like a tool's command: without an environment
	// from the caller (who filters it), the process's without credentials
	// (secrets.ChildEnv), never the process's as it is.
	cmd.Env = r.env
	if cmd.Env == nil {
		cmd.Env = secrets.ChildEnv(os.Environ(), nil, nil)
	}
	cmd.Stdin = bytes.NewReader(in)
	stdout, stderr, err := runGroup(hctx, cmd)

	var exit *exec.ExitError
	switch {
	case hctx.Err() == context.DeadlineExceeded:
		r.report(h, fmt.Sprintf("timed out after %v", timeout))
		return Outcome{}
	case ctx.Err() != nil:
		return Outcome{}
	case errors.As(err, &exit) && exit.ExitCode() == 2:
		reason := strings.TrimSpace(stderr)
		if reason == "" {
			reason = "blocked by a " + h.Event + " hook"
		}
		if !Blocks(h.Event) {
			r.report(h, "blocked: "+reason)
			return Outcome{}
		}
		return Outcome{Block: true, Reason: reason}
	case err != nil:
		msg := err.Error()
		if s := strings.TrimSpace(stderr); s != "" {
			msg += ": " + firstLine(s)
		}
		r.report(h, msg)
		return Outcome{}
	}
	return parseOutput(h.Event, strings.TrimSpace(stdout))
}

// parseOutput reads a successful hook's stdout.
func parseOutput(event, out string) Outcome {
	if !strings.HasPrefix(out, "{") {
		if !readsStdout(event) {
			return Outcome{}
		}
		return Outcome{Context: out}
	}
	var o struct {
		Decision           string `json:"decision"`
		Reason             string `json:"reason"`
		HookSpecificOutput struct {
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
			AdditionalContext        string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if json.Unmarshal([]byte(out), &o) != nil {
		if !readsStdout(event) {
			return Outcome{}
		}
		return Outcome{Context: out}
	}
	res := Outcome{Context: o.HookSpecificOutput.AdditionalContext}
	switch {
	case !Blocks(event):
	case event == PreToolUse && o.HookSpecificOutput.PermissionDecision == "deny":
		res.Block, res.Reason = true, o.HookSpecificOutput.PermissionDecisionReason
	case o.Decision == "block" || (event == PreToolUse && o.Decision == "deny"):
		res.Block, res.Reason = true, o.Reason
	}
	if res.Block && res.Reason == "" {
		res.Reason = "blocked by a " + event + " hook"
	}
	return res
}

func (r *Runner) report(h Hook, msg string) {
	if r.warn != nil {
		r.warn(fmt.Sprintf("%s hook %q: %s", h.Event, firstLine(h.Command), msg))
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 120 {
		line = line[:119] + "…"
	}
	return line
}
