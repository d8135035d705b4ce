package slash

import (
	"context"
	"fmt"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/tools"
)

func bashesCommand() Command {
	return Command{
		Name:    "bashes",
		Summary: "list the background commands (Bash with run_in_background): id, state, runtime, output size",
		Run: func(_ context.Context, env *Env, _ string) error {
			_, err := fmt.Fprint(env.IO.Out, formatShells(env.Shells.List()))
			return err
		},
	}
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
