package slash

import (
	"context"
	"errors"
	"fmt"
	"strings"

	contextmgr "github.com/clawdcode/clawdcode/internal/context"
)

func compactCommand() Command {
	return Command{
		Name:    "compact",
		Args:    "[instructions]",
		Summary: "compact the context now; instructions steer the summary (/compact --preview [instructions]: the draft and its receipt first, applied only if you accept)",
		Run: func(ctx context.Context, env *Env, instructions string) error {
			m := env.Context
			if rest, ok := previewFlag(instructions); ok {
				return preview(ctx, env, m, rest)
			}
			res, err := m.Compact(ctx, instructions)
			if errors.Is(err, contextmgr.ErrNothingToCompact) {
				_, err := fmt.Fprintln(env.IO.Out, "Nothing to compact yet: the context holds no earlier conversation to summarise.")
				return err
			}
			if err != nil {
				return fmt.Errorf("compact: %w", err)
			}
			_, err = fmt.Fprint(env.IO.Out, withNewline(formatCompact(res)))
			return err
		},
	}
}

// previewFlag splits "--preview rest" off /compact's arguments.
func previewFlag(args string) (string, bool) {
	if args == "--preview" {
		return "", true
	}
	if rest, ok := strings.CutPrefix(args, "--preview "); ok {
		return strings.TrimSpace(rest), true
	}
	return args, false
}

// preview is /compact --preview: the draft summary and its receipt. In the
// REPL the user accepts, edits or rejects it; elsewhere (-p) it is printed
// and nothing is written.
func preview(ctx context.Context, env *Env, m Context, instructions string) error {
	d, err := m.Preview(ctx, instructions)
	if errors.Is(err, contextmgr.ErrNothingToCompact) {
		_, err := fmt.Fprintln(env.IO.Out, "Nothing to compact yet: the context holds no earlier conversation to summarise.")
		return err
	}
	if err != nil {
		return fmt.Errorf("compact --preview: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Draft summary (not applied; %d tokens now):\n\n%s\n\n", d.PreTokens, strings.TrimSpace(d.Summary))
	if len(d.Files) > 0 {
		fmt.Fprintf(&b, "Files included: %s\n", strings.Join(d.Files, ", "))
	}
	b.WriteString("Receipt:\n")
	writeReceipt(&b, d.Receipt)
	if _, err := fmt.Fprint(env.IO.Out, b.String()); err != nil {
		return err
	}
	if env.Choose == nil {
		_, err := fmt.Fprintln(env.IO.Out, "Nothing was changed.")
		return err
	}
	items := []string{"accept: compact with this summary", "edit the summary, then compact", "reject: change nothing"}
	choice, err := env.Choose(ctx, "Apply this compaction?", items)
	if err != nil {
		return err
	}
	text := d.Summary
	switch choice {
	case 0:
	case 1:
		if env.Edit == nil {
			_, err := fmt.Fprintln(env.IO.Out, "No editor available; nothing was changed.")
			return err
		}
		if text, err = env.Edit(ctx, d.Summary); err != nil {
			return fmt.Errorf("edit the summary: %w", err)
		}
		if strings.TrimSpace(text) == "" {
			_, err := fmt.Fprintln(env.IO.Out, "The edited summary is empty; nothing was changed.")
			return err
		}
	default:
		_, err := fmt.Fprintln(env.IO.Out, "Rejected; nothing was changed.")
		return err
	}
	res, err := d.Apply(strings.TrimSpace(text))
	if err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	_, err = fmt.Fprint(env.IO.Out, withNewline(formatCompact(res)))
	return err
}
