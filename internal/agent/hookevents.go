package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/hooks"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// The hooks of the events a turn passes through (internal/hooks says what
// each may do): UserPromptSubmit before a prompt is recorded, PostToolUse
// after each call ran, SubagentStop when a subagent would answer, and
// Notification when the user is needed.

// maxStopBlocks bounds how many times SubagentStop hooks may keep one
// subagent going: a hook that always blocks must not hold the turn.
const maxStopBlocks = 5

// promptHook runs the UserPromptSubmit hooks over text: the prompt to
// record (text, with what the hooks added after it), or ErrPromptBlocked
// with their reason. For the first prompt of a new session it runs before
// the session exists (session_id is empty): a refused prompt leaves
// nothing behind, no file and no title.
func (t *Turns) promptHook(ctx context.Context, text string) (string, error) {
	out := t.e.runHook(ctx, hooks.UserPromptSubmit, "", hooks.Payload{"prompt": text})
	if out.Block {
		return "", fmt.Errorf("%w: %s", ErrPromptBlocked, out.Reason)
	}
	if c := strings.TrimSpace(out.Context); c != "" {
		text += "\n\n" + hookContext(hooks.UserPromptSubmit, c)
	}
	return text, nil
}

// started runs the SessionStart hooks of a session that starts (source
// "startup") or is resumed ("resume"). What they print is context, as in
// Claude Code: it goes to the model with the next message, marked as the
// hooks'.
func (s *Sessions) started(ctx context.Context, source string) {
	out := s.e.runHook(ctx, hooks.SessionStart, "", hooks.Payload{"source": source})
	if c := strings.TrimSpace(out.Context); c != "" {
		s.e.notes = append(s.e.notes, hookContext(hooks.SessionStart, c))
	}
}

// hookContext frames what a hook added, so that the model (and a reader of
// the transcript) can tell it from the user's words or the tool's output.
func hookContext(event, text string) string {
	return "<" + event + " hook>\n" + text + "\n</" + event + " hook>"
}

// afterTool runs the PostToolUse hooks of a call that ran successfully
// (as Claude Code does: a failed call's result already says what went
// wrong) and adds what they said to its result: a block's reason (the
// call has run: the model reads why the hook objects) and their
// additional context.
func (l *loop) afterTool(ctx context.Context, p prepared, res tools.Result) tools.Result {
	if l.hook == nil || ctx.Err() != nil || res.Error != "" {
		return res
	}
	response := map[string]any{"output": res.Output}
	out := l.hook(ctx, hooks.PostToolUse, p.tool.Name(), hooks.Payload{
		"tool_name": p.tool.Name(), "tool_input": p.input, "tool_response": response, "tool_use_id": p.id,
	})
	var notes []string
	if out.Block {
		notes = append(notes, hookContext(hooks.PostToolUse, "A PostToolUse hook objects: "+out.Reason))
	}
	if c := strings.TrimSpace(out.Context); c != "" {
		notes = append(notes, hookContext(hooks.PostToolUse, c))
	}
	if len(notes) == 0 {
		return res
	}
	res.Output = strings.TrimRight(res.Output, "\n") + "\n\n" + strings.Join(notes, "\n")
	return res
}

// Notification kinds, as Claude Code names them (notification_type).
const (
	NotifyPermission = "permission_prompt"
	NotifyIdle       = "idle_prompt"
)

// Notify runs the Notification hooks: the front end needs the user
// (kind: NotifyPermission when a permission question waits, NotifyIdle
// when the prompt has waited a while) and message says so. Their output
// changes nothing; a failing hook is warned about like any other.
func (t *Turns) Notify(ctx context.Context, kind, message string) {
	t.e.runHook(ctx, hooks.Notification, "", hooks.Payload{"message": message, "notification_type": kind})
}

// PermissionMessage is the Notification message for a permission question
// about tool, in Claude Code's words.
func PermissionMessage(tool string) string {
	return "clawdcode needs your permission to use " + tool
}

// subagentStop runs the SubagentStop hooks of a subagent about to answer
// (its session sess): the instruction to go on with when one blocks, ""
// when it may stop. active says a hook kept it going before.
func (t *Tasks) subagentStop(ctx context.Context, sessionID, transcript string, active bool) string {
	out := t.e.runHook(ctx, hooks.SubagentStop, "", hooks.Payload{
		"stop_hook_active": active, "agent_id": sessionID, "agent_transcript_path": transcript,
	})
	if !out.Block {
		return ""
	}
	return out.Reason
}

// runToStop runs a subagent's loop from prompt to its answer, and on while
// a SubagentStop hook blocks (at most maxStopBlocks times), each time with
// the hook's reason as the next instruction. The result sums the runs.
func (t *Tasks) runToStop(ctx context.Context, l *loop, prompt string, sess *storage.Session) (*TurnResult, error) {
	res, err := l.run(ctx, prompt)
	for blocks := 0; err == nil && blocks < maxStopBlocks; blocks++ {
		more := t.subagentStop(ctx, sess.ID(), sess.Path(), blocks > 0)
		if more == "" {
			break
		}
		var next *TurnResult
		next, err = l.run(ctx, hookContext(hooks.SubagentStop, more))
		res.NumTurns += next.NumTurns
		res.Usage.InputTokens += next.Usage.InputTokens
		res.Usage.OutputTokens += next.Usage.OutputTokens
		res.Text = next.Text
	}
	return res, err
}
