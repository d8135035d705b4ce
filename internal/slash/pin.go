package slash

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	contextmgr "github.com/clawdcode/clawdcode/internal/context"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

func pinCommand() Command {
	return Command{
		Name:    "pin",
		Args:    "[text]",
		Summary: "pin text (without text: your last message); it is sent in every request, through every compaction",
		Run: func(ctx context.Context, env *Env, text string) error {
			m := env.Context
			if env.Sessions.ID() == "" {
				// The session file is created by its first message.
				return fmt.Errorf("%w: /pin needs a session: send a message first, or continue one (-c, -r)", ErrUsage)
			}
			p, err := m.Pin(text)
			if errors.Is(err, contextmgr.ErrNoPinText) {
				return fmt.Errorf("%w: %w", ErrUsage, err)
			}
			if err != nil {
				return fmt.Errorf("pin: %w", err)
			}
			_, err = fmt.Fprintf(env.IO.Out, "Pinned (%d): %s\n", len(m.Pins()), termtext.FirstLine(p.Text, 100, termtext.Ellipsis))
			return err
		},
	}
}

func pinsCommand() Command {
	return Command{
		Name:    "pins",
		Summary: "list the pins, numbered",
		Run: func(ctx context.Context, env *Env, args string) error {
			m := env.Context
			pins := m.Pins()
			if len(pins) == 0 {
				_, err := fmt.Fprintln(env.IO.Out, "No pins. /pin <text> pins a text (without text: your last message).")
				return err
			}
			var b strings.Builder
			for i, p := range pins {
				fmt.Fprintf(&b, "%d. %s\n", i+1, strings.ReplaceAll(p.Text, "\n", "\n   "))
			}
			_, err := fmt.Fprint(env.IO.Out, b.String())
			return err
		},
	}
}

func unpinCommand() Command {
	return Command{
		Name:    "unpin",
		Args:    "<n>",
		Summary: "remove pin n (as /pins numbers them)",
		Run: func(ctx context.Context, env *Env, args string) error {
			m := env.Context
			n, err := strconv.Atoi(strings.TrimSpace(args))
			if err != nil {
				return fmt.Errorf("%w: /unpin <n>, n as /pins numbers the pins", ErrUsage)
			}
			p, err := m.Unpin(n)
			if errors.Is(err, contextmgr.ErrNoSuchPin) {
				return fmt.Errorf("%w: %w", ErrUsage, err)
			}
			if err != nil {
				return fmt.Errorf("unpin: %w", err)
			}
			_, err = fmt.Fprintf(env.IO.Out, "Unpinned: %s\n", termtext.FirstLine(p.Text, 100, termtext.Ellipsis))
			return err
		},
	}
}
