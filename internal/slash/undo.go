package slash

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/checkpoint"
)

func undoCommand() Command {
	return Command{
		Name:    "undo",
		Summary: "restore the files that Write and Edit changed in the last turn",
		Run: func(ctx context.Context, env *Env, args string) error {
			if args != "" {
				return fmt.Errorf("%w: /undo takes no arguments", ErrUsage)
			}
			restored, err := env.Engine.Undo(ctx)
			if errors.Is(err, agent.ErrNothingToUndo) {
				_, err := fmt.Fprintln(env.IO.Out, "Nothing to undo: no file that Write or Edit changed is left to restore.")
				return err
			}
			if err != nil {
				return fmt.Errorf("undo: %w", err)
			}
			return printRestored(env.IO.Out, projectRoot(env), restored)
		},
	}
}

// printRestored lists what a restore did, one file a line.
func printRestored(w io.Writer, root string, restored []checkpoint.Restored) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Restored %d file(s):\n", countRestored(restored))
	for _, r := range restored {
		fmt.Fprintf(&b, "  %s  %s\n", r.Action, relTo(root, r.Path))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func countRestored(rs []checkpoint.Restored) int {
	n := 0
	for _, r := range rs {
		if r.Action == "restored" || r.Action == "removed" {
			n++
		}
	}
	return n
}

func projectRoot(env *Env) string {
	if p := env.Engine.Project(); p != nil {
		return p.Root
	}
	return ""
}

// relTo shows path relative to root when inside it.
func relTo(root, path string) string {
	if root == "" {
		return path
	}
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}
