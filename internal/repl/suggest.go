package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/clawdcode/clawdcode/internal/memory"
)

// offerSuggestions asks the user about each memory suggestion not yet
// offered in this run, one key each: accept, edit then accept, reject, or
// later (Escape: asked again in a later run). It runs at a calm moment —
// at the prompt, between entries — and only on a terminal: elsewhere the
// suggestions wait for /memory.
func (s *session) offerSuggestions(ctx context.Context) {
	book := s.opts.Parts.Memory.Book()
	if s.kb == nil || book == nil {
		return
	}
	v, err := book.View()
	if err != nil {
		s.say(styleWords(s.cs.warn, "memory suggestions: "+err.Error()))
		return
	}
	for _, sg := range v.Suggestions {
		if s.offered[sg.ID] {
			continue
		}
		if s.offered == nil {
			s.offered = map[string]bool{}
		}
		s.offered[sg.ID] = true
		if err := s.offerSuggestion(ctx, book, sg); err != nil {
			if !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
				s.printError(err)
			}
			return
		}
	}
}

var suggestionChoices = []choice{
	{key: '1', alias: 'a', label: "Accept: remember it for this project"},
	{key: '2', alias: 'e', label: "Edit it, then remember it"},
	{key: '3', alias: 'r', label: "Reject: do not suggest it again"},
	{key: '4', alias: 'l', label: "Later", cancel: true},
}

func (s *session) offerSuggestion(ctx context.Context, book *memory.Book, sg memory.Suggestion) error {
	s.con.kb.beginDialog()
	defer s.con.kb.endDialog()
	s.say(s.cs.warn("?") + " " + styleWords(s.cs.bold, "Remember this for every session of this project?"))
	s.say("  " + safe(sg.Text))
	s.say("  " + styleWords(s.cs.dim, "("+safe(memory.DescribeSuggestion(sg))+"; not given to the model unless you accept)"))
	i, err := selectOption(ctx, s.con, s.io.ErrOut, s.cs, suggestionChoices, nil)
	if err != nil {
		return err
	}
	n := suggestionNumber(book, sg.ID)
	if n == 0 {
		return nil // answered meanwhile, by another clawdcode
	}
	switch i {
	case 0:
		return s.acceptSuggestion(ctx, book, n, "")
	case 1:
		edit := s.editor(nil)
		if ts, ok := s.input.(*termSource); ok {
			edit = s.editor(ts.handOver)
		}
		if edit == nil {
			return errors.New("memory: no editor")
		}
		text, err := edit(ctx, sg.Text+"\n")
		if err != nil {
			return fmt.Errorf("edit the suggestion: %w", err)
		}
		if strings.TrimSpace(text) == "" {
			s.say(styleWords(s.cs.dim, "Left empty: not remembered; /memory lists the suggestion."))
			return nil
		}
		return s.acceptSuggestion(ctx, book, n, text)
	case 2:
		_, err := book.Reject(ctx, n)
		return err
	}
	return nil
}

func (s *session) acceptSuggestion(ctx context.Context, book *memory.Book, n int, text string) error {
	m, retired, err := book.Accept(ctx, n, text)
	if err != nil {
		return fmt.Errorf("memory accept: %w", err)
	}
	s.say(s.cs.dim("Remembered:") + " " + safe(m.Text))
	for _, r := range retired {
		s.say(styleWords(s.cs.dim, "Retired, replaced by it:") + " " + safe(r.Text))
	}
	s.say(styleWords(s.cs.dim, "The model follows this from your next message on."))
	return nil
}

// suggestionNumber is the number /memory gives the suggestion id (0 when
// it is no longer pending).
func suggestionNumber(book *memory.Book, id string) int {
	v, err := book.View()
	if err != nil {
		return 0
	}
	for i, sg := range v.Suggestions {
		if sg.ID == id {
			return i + 1
		}
	}
	return 0
}
