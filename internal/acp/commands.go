package acp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/clawdcode/clawdcode/internal/iostreams"
	"github.com/clawdcode/clawdcode/internal/slash"
)

// notInEditor are the REPL's commands that make no sense in an editor's
// session: those that put the engine in another session (the editor opens
// and switches sessions itself, by their ids), leave the program, or work
// the terminal's screen. They are not advertised, and say why when typed.
var notInEditor = map[string]string{
	"new":     "start a new session (thread) in the editor instead",
	"clear":   "start a new session (thread) in the editor instead",
	"switch":  "open the session from the editor's history instead",
	"resume":  "open the session from the editor's history instead",
	"fork":    "it would continue in another session than this one; run it in the terminal (clawdcode -r <id>)",
	"handoff": "it would continue in another session than this one; run it in the terminal (clawdcode -r <id>)",
	"rewind":  "it picks a message on the terminal's screen; run it in the terminal (clawdcode -r <id>)",
	"exit":    "close the session in the editor instead",
	"expand":  "the editor shows each tool call's whole output already",
}

// availableCommands are the slash commands an editor may offer: the
// built-in ones that make sense there and every custom command.
func (s *session) availableCommands() []acpsdk.AvailableCommand {
	var out []acpsdk.AvailableCommand
	for _, c := range s.eng.Commands.Commands() {
		if _, no := notInEditor[strings.ToLower(c.Name)]; no {
			continue
		}
		ac := acpsdk.AvailableCommand{Name: c.Name, Description: c.Summary}
		hint := strings.Trim(c.Args, "[]<>")
		if hint == "" && c.Prompt != nil {
			hint = "arguments" // a prompt command takes $ARGUMENTS
		}
		if hint != "" {
			ac.Input = &acpsdk.AvailableCommandInput{Unstructured: &acpsdk.UnstructuredCommandInput{Hint: hint}}
		}
		out = append(out, ac)
	}
	slices.SortStableFunc(out, func(a, b acpsdk.AvailableCommand) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// announceCommands sends the commands to the client.
func (s *session) announceCommands() {
	s.notify(acpsdk.SessionUpdate{AvailableCommandsUpdate: &acpsdk.SessionAvailableCommandsUpdate{AvailableCommands: s.availableCommands()}})
}

// runCommand runs a slash command as the REPL would, its output the
// agent's message; a command that failed says so there too (the turn
// itself ended as it should).
func (s *session) runCommand(ctx context.Context, name, line string) acpsdk.PromptResponse {
	if why, no := notInEditor[strings.ToLower(name)]; no {
		s.notify(acpsdk.UpdateAgentMessageText(fmt.Sprintf("/%s is not available in an editor: %s.", name, why)))
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonEndTurn}
	}
	ios, _, out, errOut := iostreams.Test()
	env := &slash.Env{Parts: s.eng.Parts, IO: ios}
	err := s.eng.Commands.Run(ctx, env, line)
	text := strings.TrimRight(out.String(), "\n")
	if e := strings.TrimSpace(errOut.String()); e != "" {
		text = strings.TrimSpace(text + "\n" + e)
	}
	if err != nil && !errors.Is(err, slash.ErrExit) {
		text = strings.TrimSpace(text + "\n" + "Error: " + err.Error())
	}
	if text == "" {
		text = "/" + name + ": done."
	}
	s.notify(acpsdk.UpdateAgentMessageText(text))
	s.reportMode()
	stop := acpsdk.StopReasonEndTurn
	if ctx.Err() != nil {
		stop = acpsdk.StopReasonCancelled
	}
	return acpsdk.PromptResponse{StopReason: stop, Meta: s.reportUsage(nil)}
}
