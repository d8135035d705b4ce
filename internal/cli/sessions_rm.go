package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

// SessionsRmOptions are the arguments of `sessions rm`.
type SessionsRmOptions struct {
	ID  string
	Yes bool
}

// NewCmdSessionsRm builds `sessions rm <id>`; runF replaces the behaviour in tests.
func NewCmdSessionsRm(f *Factory, runF func(context.Context, *SessionsRmOptions) error) *cobra.Command {
	opts := &SessionsRmOptions{}
	cmd := &cobra.Command{
		Use:     "rm <id>",
		Aliases: []string{"delete"},
		Short:   "Delete a session",
		Args:    exactArgs(1, "a session id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return sessionsRm(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "delete without asking")
	return cmd
}

func sessionsRm(ctx context.Context, f *Factory, opts *SessionsRmOptions) error {
	p, id, err := resolveSession(f, opts.ID)
	if err != nil {
		return err
	}
	if !opts.Yes {
		if !f.IO.IsStdinTTY() {
			return usageErrorf("refusing to delete session %s without confirmation: pass --yes", id)
		}
		label := id
		if title := sessionTitle(p, id); title != "" {
			label += " (" + termtext.Flatten(title, 60) + ")"
		}
		ok, err := confirm(ctx, f, fmt.Sprintf("Delete session %s? [y/N] ", label))
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(f.IO.ErrOut, "Kept.")
			return nil
		}
	}
	if err := p.Remove(id); err != nil {
		if errors.Is(err, storage.ErrSessionBusy) {
			return withHint(err, busyHintRemove)
		}
		return err // the store's errors name the session
	}
	fmt.Fprintf(f.IO.ErrOut, "Deleted session %s\n", id)
	return nil
}

// confirm asks a yes/no question on the terminal; anything but y/yes is no.
func confirm(ctx context.Context, f *Factory, question string) (bool, error) {
	fmt.Fprint(f.IO.ErrOut, question)
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(f.IO.In).ReadString('\n')
		answer <- line
	}()
	select {
	case <-ctx.Done():
		return false, context.Cause(ctx)
	case line := <-answer:
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return true, nil
		}
		return false, nil
	}
}
