package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/toolcall"
)

// Names of the tools over background commands (CONTRACT.md §3).
const (
	NameBashOutput = toolcall.BashOutput
	NameKillShell  = toolcall.KillShell
)

type bashOutputParams struct {
	BashID string `json:"bash_id" param:"text" jsonschema:"The id Bash answered, e.g. bash_1."`
}

type killShellParams struct {
	ShellID string `json:"shell_id" param:"text" jsonschema:"The id Bash answered, e.g. bash_1."`
}

// runBackground starts command in the background (Bash with
// run_in_background) and answers with its id.
func (e *Env) runBackground(command string, outside bool) Result {
	s, err := e.background.start(e, command, outside)
	if err != nil {
		return fail("%v", err)
	}
	return Result{Output: fmt.Sprintf("Started in the background with id %s (process group %d). "+
		"Read its output with BashOutput {\"bash_id\": %q}; end it with KillShell {\"shell_id\": %q}. "+
		"It is killed when the session ends.", s.id, s.proc.shown, s.id, s.id)}
}

// BashOutput and KillShell only touch commands Bash started, which the
// user already allowed: they need no permission of their own.
func newBashOutputTool(env *Env) *tool {
	return typed(&tool{
		name: NameBashOutput,
		description: "What a background command (Bash run_in_background) printed since the last read, and whether it still runs. " +
			"Only its last " + fmt.Sprint(BackgroundOutputCap>>20) + " MiB are kept (a marker says what was dropped); " +
			"one read answers at most ~" + fmt.Sprint(OutputCap) + " bytes.",
	}, env.runBashOutput, func(p bashOutputParams) string { return p.BashID })
}

func newKillShellTool(env *Env) *tool {
	return typed(&tool{
		name:        NameKillShell,
		description: "End a background command and its whole process group.",
	}, env.runKillShell, func(p killShellParams) string { return p.ShellID })
}

func (e *Env) runBashOutput(_ context.Context, p bashOutputParams) Result {
	s := e.background.find(strings.TrimSpace(p.BashID))
	if s == nil {
		return e.unknownShell(p.BashID)
	}
	// Read the state first: output written before the shell exited is in
	// the ring by the time its exit is recorded, so "exited" below never
	// hides a last line.
	info := s.info()
	text := CapText(s.out.unread(), OutputCap)
	if text == "" {
		text = "(no new output)"
	}
	return Result{Output: shellState(info) + "\n" + text}
}

func (e *Env) runKillShell(_ context.Context, p killShellParams) Result {
	s := e.background.find(strings.TrimSpace(p.ShellID))
	if s == nil {
		return e.unknownShell(p.ShellID)
	}
	before := s.info()
	s.kill()
	if !before.Running {
		return Result{Output: fmt.Sprintf("%s had already ended (%s); nothing of its process group is left running.", s.id, before.Status)}
	}
	return Result{Output: fmt.Sprintf("%s killed after %s: %s", s.id, roundRuntime(s.info().Runtime), s.command)}
}

func (e *Env) unknownShell(id string) Result {
	ids := e.background.ids()
	if len(ids) == 0 {
		return fail("no background command has the id %q: none was started in this run of clawdcode "+
			"(they end with the run that started them; Bash with run_in_background: true starts one)", id)
	}
	return fail("no background command has the id %q; the ids are %s", id, strings.Join(ids, ", "))
}

// shellState is the first line of BashOutput's answer.
func shellState(i ShellInfo) string {
	if i.Running {
		return fmt.Sprintf("%s: running for %s, %d bytes of output in all. New output:", i.ID, roundRuntime(i.Runtime), i.Bytes)
	}
	return fmt.Sprintf("%s: ended (%s) after %s, %d bytes of output in all. New output:", i.ID, i.Status, roundRuntime(i.Runtime), i.Bytes)
}

// roundRuntime rounds d for people (and models) to read: 3.2s, 12m4s.
func roundRuntime(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}
