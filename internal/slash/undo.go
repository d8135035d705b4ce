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
			drift, err := env.Checkpoints.UndoDrift(ctx)
			if err != nil {
				return fmt.Errorf("undo: %w", err)
			}
			if ok, err := confirmLoss(ctx, env, "/undo", drift); !ok || err != nil {
				return err
			}
			restored, err := env.Checkpoints.Undo(ctx)
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

// confirmLoss shows what a restore would lose — the changes made to files
// since the agent last wrote them — and asks whether to go on. Where
// nobody can answer (-p) it refuses, naming the files. It reports whether
// to restore.
func confirmLoss(ctx context.Context, env *Env, cmd string, drift []checkpoint.Drift) (bool, error) {
	if len(drift) == 0 {
		return true, nil
	}
	names := make([]string, len(drift))
	for i, d := range drift {
		names[i] = relTo(projectRoot(env), d.Path)
	}
	changed := strings.Join(names, ", ")
	if env.Confirm == nil {
		return false, fmt.Errorf("%s refused: %s changed since the agent's edit, and restoring would lose those changes; "+
			"nothing was restored (run %s in the interactive session to see them and confirm)", cmd, changed, cmd)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s changed since the agent's edit; restoring loses these changes:\n", changed)
	for _, d := range drift {
		b.WriteString(d.Diff)
	}
	if _, err := io.WriteString(env.IO.Out, b.String()); err != nil {
		return false, err
	}
	ok, err := env.Confirm(ctx, "Restore anyway and lose them?")
	if err == nil && !ok {
		_, err = fmt.Fprintf(env.IO.Out, "%s left undone; your changes are kept.\n", cmd)
	}
	return ok, err
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
	if p := env.Sessions.Project(); p != nil {
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
