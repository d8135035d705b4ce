package slash

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/checkpoint"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

func rewindCommand() Command {
	return Command{
		Name:    "rewind",
		Summary: "go back to before an earlier message (and restore the files changed since), or return to where you were",
		Run:     rewind,
	}
}

// rewind lists the conversation's user messages newest first (the one
// highlighted is the last), then, after the last rewind, the way back to
// where the conversation was before it; whatever is picked is confirmed
// first, with the files it would restore named.
func rewind(ctx context.Context, env *Env, args string) error {
	r := env.Checkpoints
	if env.Choose == nil || env.Confirm == nil {
		return fmt.Errorf("%w: /rewind asks which message to go back to, so it needs the interactive session", ErrUsage)
	}
	pts, err := r.RewindPoints(ctx)
	if err != nil {
		return fmt.Errorf("rewind: %w", err)
	}
	back, err := r.ReturnPoint(ctx)
	if err != nil {
		return fmt.Errorf("rewind: %w", err)
	}
	if len(pts) == 0 && back == nil {
		_, err := fmt.Fprintln(env.IO.Out, "Nothing to rewind: this session has no message in its context yet.")
		return err
	}
	var items []string
	for i := len(pts) - 1; i >= 0; i-- {
		item := termtext.FirstLine(pts[i].Text, 70, termtext.Ellipsis)
		if n := len(pts[i].Changes); n > 0 {
			item += fmt.Sprintf("  (%d file(s) changed since)", n)
		}
		items = append(items, item)
	}
	if back != nil {
		items = append(items, fmt.Sprintf("↪ Return to where you were before the last rewind (%d %s, the last %q)",
			back.Messages, plural(back.Messages, "message", "messages"), termtext.FirstLine(back.Last, 40, termtext.Ellipsis)))
	}
	i, err := env.Choose(ctx, "Rewind to just before which message? (newest first)", items)
	if err != nil || i < 0 {
		return err
	}
	if i == len(pts) {
		return returnTo(ctx, env, *back)
	}
	return rewindTo(ctx, env, pts[len(pts)-1-i])
}

// rewindTo confirms a rewind to pt, then makes it.
func rewindTo(ctx context.Context, env *Env, pt agent.RewindPoint) error {
	msg := termtext.FirstLine(pt.Text, 60, termtext.Ellipsis)
	restore, ok, err := confirmGoingBack(ctx, env, fmt.Sprintf("Rewind to before: %q?", msg),
		"the conversation continues from just before it, and /rewind can return here",
		"restore the %d file(s) Write and Edit changed since (%s)", pt.Changes)
	if err != nil || !ok {
		return err
	}
	if restore {
		drift, err := env.Checkpoints.RewindDrift(ctx, pt)
		if err != nil {
			return fmt.Errorf("rewind: %w", err)
		}
		if ok, err := confirmLoss(ctx, env, "/rewind", drift); !ok || err != nil {
			return err
		}
	}
	restored, err := env.Checkpoints.Rewind(ctx, pt, restore)
	if err != nil {
		return fmt.Errorf("rewind: %w", err)
	}
	if _, err := fmt.Fprintf(env.IO.Out, "Rewound to before %q; the conversation continues from there (/rewind returns to where you were).\n", msg); err != nil {
		return err
	}
	if env.Draft != nil {
		env.Draft(pt.Text) // as Claude Code does: the message is back in the entry, to edit or send
	}
	if restore {
		return printRestored(env.IO.Out, projectRoot(env), restored)
	}
	return nil
}

// returnTo confirms a return to where the conversation was before the
// last rewind, then makes it.
func returnTo(ctx context.Context, env *Env, back agent.ReturnPoint) error {
	last := termtext.FirstLine(back.Last, 60, termtext.Ellipsis)
	restore, ok, err := confirmGoingBack(ctx, env, fmt.Sprintf("Return to where you were before the last rewind (after %q)?", last),
		"the conversation continues after that message, and /rewind can go back again",
		"put back the %d file(s) the rewind restored (%s)", back.Changes)
	if err != nil || !ok {
		return err
	}
	if restore {
		drift, err := env.Checkpoints.ReturnDrift(ctx, back)
		if err != nil {
			return fmt.Errorf("rewind: %w", err)
		}
		if ok, err := confirmLoss(ctx, env, "/rewind", drift); !ok || err != nil {
			return err
		}
	}
	restored, err := env.Checkpoints.Return(ctx, back, restore)
	if err != nil {
		return fmt.Errorf("rewind: %w", err)
	}
	if _, err := fmt.Fprintf(env.IO.Out, "Returned to where you were: the conversation continues after %q.\n", last); err != nil {
		return err
	}
	if restore {
		return printRestored(env.IO.Out, projectRoot(env), restored)
	}
	return nil
}

// confirmGoingBack asks before a rewind or a return: yes or no when no
// file would change; otherwise whether to restore the files too (what
// files says, with their count and names), the conversation only, or
// nothing (ok false).
func confirmGoingBack(ctx context.Context, env *Env, question, then, files string, changes []checkpoint.Change) (restore, ok bool, err error) {
	if len(changes) == 0 {
		ok, err = env.Confirm(ctx, question+" ("+then+"; no file changed since)")
		return false, ok, err
	}
	names := make([]string, len(changes))
	for i, c := range changes {
		names[i] = relTo(projectRoot(env), c.Path)
	}
	i, err := env.Choose(ctx, question+" ("+then+")", []string{
		"Yes, and " + fmt.Sprintf(files, len(changes), strings.Join(names, ", ")),
		"Yes, the conversation only: the files stay as they are",
		"No, stay here",
	})
	if err != nil || i < 0 || i == 2 {
		return false, false, err
	}
	return i == 0, true, nil
}
