package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// memoryLine is the text of an entry that is a memory to keep, as
// Claude Code's # shortcut has it: one line that starts with a single #
// ("# use tabs", "#use tabs"); ok is false for anything else (a heading
// "## Plan", a line of several, a bare #), which goes to the model.
func memoryLine(entry string) (text string, ok bool) {
	line := strings.TrimSpace(entry)
	rest, found := strings.CutPrefix(line, "#")
	if !found || strings.ContainsAny(line, "\n\r") || strings.HasPrefix(rest, "#") || strings.HasPrefix(rest, "!") {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	return rest, rest != ""
}

var rememberChoices = []choice{
	{key: '1', alias: 'p', label: "Project memory: every session of this project"},
	{key: '2', alias: 'u', label: "User memory: every session of every project"},
	{key: '3', alias: 'n', label: "Cancel: keep nothing", cancel: true},
}

// remember keeps text as a memory, as /memory add does (and says what
// it did there): on a terminal it first asks whether it is the project's
// or the user's; elsewhere it is the project's.
func (s *session) remember(ctx context.Context, text string) error {
	user := false
	if s.kb != nil {
		i, err := s.askScope(ctx, text)
		if err != nil || i == 2 {
			if errors.Is(err, io.EOF) || i == 2 {
				s.say(styleWords(s.cs.dim, "Not remembered."))
				return nil
			}
			return err
		}
		user = i == 1
	}
	line := "/memory add " + text
	if user {
		line = "/memory add --user " + text
	}
	return s.command(ctx, line)
}

// askScope asks where a # memory goes.
func (s *session) askScope(ctx context.Context, text string) (int, error) {
	s.con.kb.beginDialog()
	defer s.con.kb.endDialog()
	s.say(fmt.Sprintf("%s %s", s.cs.warn("?"), styleWords(s.cs.bold, "Remember this where?")))
	s.say("  " + safe(text))
	return selectOption(ctx, s.con, s.io.ErrOut, s.cs, rememberChoices, nil)
}
