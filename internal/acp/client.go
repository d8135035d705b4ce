package acp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/tools"
)

// clientFiles are the editor's buffers as the tools' text files
// (fs/read_text_file, fs/write_text_file), for one session.
type clientFiles struct{ s *session }

var (
	_ tools.TextReader = (*clientFiles)(nil)
	_ tools.TextWriter = (*clientFiles)(nil)
	_ tools.Terminal   = (*clientTerminal)(nil)
)

func (f *clientFiles) ReadTextFile(ctx context.Context, path string) (string, error) {
	resp, err := f.s.srv.conn.ReadTextFile(ctx, acpsdk.ReadTextFileRequest{SessionId: acpsdk.SessionId(f.s.id), Path: path})
	if err != nil {
		return "", clientError(err)
	}
	return resp.Content, nil
}

func (f *clientFiles) WriteTextFile(ctx context.Context, path, content string) error {
	_, err := f.s.srv.conn.WriteTextFile(ctx, acpsdk.WriteTextFileRequest{SessionId: acpsdk.SessionId(f.s.id), Path: path, Content: content})
	return clientError(err)
}

// clientError is an error the client answered with, in its own words.
func clientError(err error) error {
	var re *acpsdk.RequestError
	if errors.As(err, &re) {
		msg := re.Message
		if m, ok := re.Data.(map[string]any); ok {
			for _, k := range []string{"error", "details", "message"} {
				if s, ok := m[k].(string); ok && s != "" {
					msg += ": " + s
					break
				}
			}
		}
		return errors.New(msg)
	}
	return err
}

// clientTerminal runs Bash's commands in the editor's terminals
// (terminal/*): the call's content shows the terminal, which the editor
// keeps showing after its release.
type clientTerminal struct{ s *session }

func (t *clientTerminal) Run(ctx context.Context, cmd tools.TerminalCommand) (tools.TerminalResult, error) {
	conn, sid := t.s.srv.conn, acpsdk.SessionId(t.s.id)
	env := make([]acpsdk.EnvVariable, 0, len(cmd.Env))
	for _, kv := range cmd.Env {
		name, value, _ := strings.Cut(kv, "=")
		env = append(env, acpsdk.EnvVariable{Name: name, Value: value})
	}
	limit := cmd.OutputLimit
	created, err := conn.CreateTerminal(ctx, acpsdk.CreateTerminalRequest{
		SessionId: sid, Command: cmd.Shell, Args: []string{"-c", cmd.Line}, Cwd: &cmd.Dir, Env: env, OutputByteLimit: &limit,
	})
	if err != nil {
		return tools.TerminalResult{}, clientError(err)
	}
	term := created.TerminalId
	// Cleaning up does not wait on the turn: it runs after a cancel too.
	bg := context.WithoutCancel(ctx)
	defer func() {
		_, _ = conn.ReleaseTerminal(bg, acpsdk.ReleaseTerminalRequest{SessionId: sid, TerminalId: term})
	}()
	t.s.attachTerminal(tools.CallID(ctx), term)

	wait, cancel := context.WithTimeout(ctx, cmd.Timeout)
	defer cancel()
	exit, err := conn.WaitForTerminalExit(wait, acpsdk.WaitForTerminalExitRequest{SessionId: sid, TerminalId: term})
	var res tools.TerminalResult
	switch {
	case err == nil:
		res.ExitCode, res.Signal = exit.ExitCode, deref(exit.Signal)
	case ctx.Err() == nil && wait.Err() != nil:
		res.TimedOut = true
		_, _ = conn.KillTerminal(bg, acpsdk.KillTerminalRequest{SessionId: sid, TerminalId: term})
	case ctx.Err() != nil:
		_, _ = conn.KillTerminal(bg, acpsdk.KillTerminalRequest{SessionId: sid, TerminalId: term})
	default:
		return tools.TerminalResult{}, fmt.Errorf("wait for the command: %w", clientError(err))
	}
	out, err := conn.TerminalOutput(bg, acpsdk.TerminalOutputRequest{SessionId: sid, TerminalId: term})
	if err != nil {
		return res, fmt.Errorf("read the command's output: %w", clientError(err))
	}
	res.Output, res.Truncated = out.Output, out.Truncated
	if res.ExitCode == nil && res.Signal == "" && out.ExitStatus != nil {
		res.ExitCode, res.Signal = out.ExitStatus.ExitCode, deref(out.ExitStatus.Signal)
	}
	return res, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
