package slash

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/termtext"
)

func rewindCommand() Command {
	return Command{
		Name:    "rewind",
		Summary: "go back to before an earlier message (and restore the files changed since)",
		Run:     rewind,
	}
}

func rewind(ctx context.Context, env *Env, args string) error {
	r := env.Checkpoints
	if env.Choose == nil || env.Confirm == nil {
		return fmt.Errorf("%w: /rewind asks which message to go back to, so it needs the interactive session", ErrUsage)
	}
	pts, err := r.RewindPoints(ctx)
	if err != nil {
		return fmt.Errorf("rewind: %w", err)
	}
	if len(pts) == 0 {
		_, err := fmt.Fprintln(env.IO.Out, "Nothing to rewind: this session has no message in its context yet.")
		return err
	}
	items := make([]string, len(pts))
	for i, p := range pts {
		items[i] = termtext.FirstLine(p.Text, 70, termtext.Ellipsis)
		if n := len(p.Changes); n > 0 {
			items[i] += fmt.Sprintf("  (%d file(s) changed since)", n)
		}
	}
	i, err := env.Choose(ctx, "Rewind to just before which message?", items)
	if err != nil || i < 0 {
		return err
	}
	pt := pts[i]
	restore := false
	if len(pt.Changes) > 0 {
		var names []string
		for _, c := range pt.Changes {
			names = append(names, relTo(projectRoot(env), c.Path))
		}
		restore, err = env.Confirm(ctx, fmt.Sprintf("Also restore %d file(s) Write and Edit changed since (%s)?",
			len(names), strings.Join(names, ", ")))
		if err != nil {
			return err
		}
	}
	if restore {
		drift, err := r.RewindDrift(ctx, pt)
		if err != nil {
			return fmt.Errorf("rewind: %w", err)
		}
		if ok, err := confirmLoss(ctx, env, "/rewind", drift); !ok || err != nil {
			return err
		}
	}
	restored, err := r.Rewind(ctx, pt, restore)
	if err != nil {
		return fmt.Errorf("rewind: %w", err)
	}
	if _, err := fmt.Fprintf(env.IO.Out, "Rewound to before %q; the conversation continues from there.\n", termtext.FirstLine(pt.Text, 60, termtext.Ellipsis)); err != nil {
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
