package slash

import (
	"context"
	"fmt"
	"io"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/clawdcode/clawdcode/internal/checkpoint"
)

func diffCommand() Command {
	return Command{
		Name:    "diff",
		Summary: "what this session changed: a diff of each file Write and Edit changed, from before the session's first change to now",
		Run: func(ctx context.Context, env *Env, _ string) error {
			files, err := env.Checkpoints.Diff(ctx)
			if err != nil {
				return fmt.Errorf("diff: %w", err)
			}
			// On a terminal the text is made safe (a file's content is
			// shown, not obeyed); redirected, it is a patch as it is.
			out := env.IO.TermOut()
			defer out.Flush()
			if len(files) == 0 {
				fmt.Fprintln(out, "No file changed by Write or Edit in this session.")
				return nil
			}
			for _, f := range files {
				writeFileDiff(out, f)
			}
			return nil
		},
	}
}

// writeFileDiff writes one file's unified diff (a/ and b/ names, as git
// does), or a line saying why there is none.
func writeFileDiff(w io.Writer, f checkpoint.FileDiff) {
	if f.Drifted {
		fmt.Fprintf(w, "# %s: changed outside clawdcode after its last edit\n", f.Rel)
	}
	switch {
	case f.Skipped != "":
		fmt.Fprintf(w, "# %s: no diff: its content before was not kept (%s)\n", f.Rel, f.Skipped)
		return
	case f.Before == f.Now && f.Existed == f.Exists:
		fmt.Fprintf(w, "# %s: changed, then put back as it was\n", f.Rel)
		return
	}
	from, to := "a/"+f.Rel, "b/"+f.Rel
	if !f.Existed {
		from = "/dev/null"
	}
	if !f.Exists {
		to = "/dev/null"
	}
	u, err := udiff.ToUnifiedDiff(from, to, f.Before, udiff.Lines(f.Before, f.Now), udiff.DefaultContextLines)
	if err != nil {
		fmt.Fprintf(w, "# %s: no diff: %v\n", f.Rel, err)
		return
	}
	fmt.Fprintf(w, "diff --clawdcode a/%s b/%s\n%s", f.Rel, f.Rel, u.String())
}
