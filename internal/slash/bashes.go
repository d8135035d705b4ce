package slash

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// bashesTail is how many lines of a background command's output /bashes
// shows.
const bashesTail = 40

func bashesCommand() Command {
	return Command{
		Name:    "bashes",
		Args:    "[id | kill <id>]",
		Summary: "the background commands (Bash with run_in_background): list them, show one's output (/bashes <id>, or pick one), stop one (/bashes kill <id>)",
		Run: func(ctx context.Context, env *Env, args string) error {
			verb, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
			switch {
			case verb == "kill" || verb == "stop":
				return stopShell(env, strings.TrimSpace(rest))
			case verb != "":
				return showShell(env, verb)
			}
			shells := env.Shells.List()
			if len(shells) == 0 || env.Choose == nil {
				_, err := fmt.Fprint(env.IO.Out, formatShells(shells))
				if len(shells) > 0 {
					fmt.Fprintln(env.IO.Out, "/bashes <id> shows one's output; /bashes kill <id> stops it.")
				}
				return err
			}
			return pickShell(ctx, env, shells)
		},
	}
}

// pickShell lets the user pick a background command, shows its output,
// and offers to stop it while it runs.
func pickShell(ctx context.Context, env *Env, shells []tools.ShellInfo) error {
	items := make([]string, len(shells))
	for i, s := range shells {
		items[i] = fmt.Sprintf("%s  %s  %s  %s", s.ID, s.Status, shellRuntime(s.Runtime), termtext.FirstLine(s.Command, 80, termtext.Ellipsis))
	}
	i, err := env.Choose(ctx, "Background commands: pick one to see its output", items)
	if err != nil || i < 0 {
		return err
	}
	if err := showShell(env, shells[i].ID); err != nil {
		return err
	}
	if !shells[i].Running || env.Confirm == nil {
		return nil
	}
	stop, err := env.Confirm(ctx, "Stop "+shells[i].ID+" and everything it started?")
	if err != nil || !stop {
		return err
	}
	return stopShell(env, shells[i].ID)
}

// showShell prints a background command's state and the end of its output.
func showShell(env *Env, id string) error {
	info, out, err := env.Shells.Output(id)
	if err != nil {
		return fmt.Errorf("%w: /bashes: %w", ErrUsage, err)
	}
	fmt.Fprintf(env.IO.Out, "%s · %s · %s · %s printed\n$ %s\n", info.ID, info.Status, shellRuntime(info.Runtime), byteCount(info.Bytes), termtext.Line(info.Command))
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if strings.TrimSpace(out) == "" {
		lines = []string{"(no output yet)"}
	}
	if len(lines) > bashesTail {
		fmt.Fprintf(env.IO.Out, "  … %d lines above\n", len(lines)-bashesTail)
		lines = lines[len(lines)-bashesTail:]
	}
	for _, l := range lines {
		fmt.Fprintln(env.IO.Out, "  "+termtext.Line(l))
	}
	return nil
}

// stopShell ends a background command and says so.
func stopShell(env *Env, id string) error {
	if id == "" {
		return fmt.Errorf("%w: /bashes kill <id>", ErrUsage)
	}
	before, _, err := env.Shells.Output(id)
	if err != nil {
		return fmt.Errorf("%w: /bashes: %w", ErrUsage, err)
	}
	info, err := env.Shells.Stop(id)
	if err != nil {
		return err
	}
	if !before.Running {
		_, err = fmt.Fprintf(env.IO.Out, "%s had already ended (%s).\n", info.ID, before.Status)
		return err
	}
	_, err = fmt.Fprintf(env.IO.Out, "%s stopped after %s, with everything it started: %s\n", info.ID, shellRuntime(info.Runtime), termtext.Line(info.Command))
	return err
}

// formatShells renders /bashes: one line per command, the command last
// (it is the one column of any width).
func formatShells(shells []tools.ShellInfo) string {
	if len(shells) == 0 {
		return "No background commands in this run (the model starts one with Bash and run_in_background; they end with the run).\n"
	}
	var b strings.Builder
	for _, s := range shells {
		fmt.Fprintf(&b, "%-8s %-22s %8s %10s  %s\n", s.ID, s.Status, shellRuntime(s.Runtime), byteCount(s.Bytes), termtext.FirstLine(s.Command, 100, "…"))
	}
	return b.String()
}

func shellRuntime(d time.Duration) string {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

func byteCount(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
