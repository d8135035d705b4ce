package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/clawdcode/clawdcode/internal/checkpoint"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// SessionsCheckOptions are the arguments of `sessions check`.
type SessionsCheckOptions struct {
	ID     string
	All    bool
	Repair bool
}

// NewCmdSessionsCheck builds `sessions check [id] [--repair]`; runF
// replaces the behaviour in tests.
func NewCmdSessionsCheck(f *Factory, runF func(context.Context, *SessionsCheckOptions) error) *cobra.Command {
	opts := &SessionsCheckOptions{}
	cmd := &cobra.Command{
		Use:   "check [id]",
		Short: "Verify session files; --repair mends what it can without dropping a record",
		Long: `Reads the sessions of this project (one session with an id, every project
with --all) and reports torn or damaged lines, duplicate lines, records
whose parent is missing, compaction boundaries without their summary,
index.json entries that disagree with the files, and checkpoint data of
sessions that no longer exist.

--repair appends to each damaged session one record that names the damage
(readers then pass over it, and over a duplicate's second copy) and
re-links the orphaned records; no line of a session file is changed or
removed. It rebuilds a drifted index and deletes orphan checkpoint data,
and writes what it did to the log. A uuid shared by two different records
is reported but not repaired.

Exit status: 0 when nothing is wrong (or everything was repaired), 1 when
problems remain.`,
		Args: checkArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.ID = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return sessionsCheck(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.All, "all", false, "check the sessions of every project")
	cmd.Flags().BoolVar(&opts.Repair, "repair", false, "repair what can be repaired")
	return cmd
}

// checkArgs accepts at most one session id.
func checkArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 1 {
		return usageErrorf("unexpected argument %q for %q", args[1], cmd.CommandPath())
	}
	return nil
}

// checkTally counts what a check found and mended.
type checkTally struct {
	sessions, found, repaired int
}

func sessionsCheck(ctx context.Context, f *Factory, opts *SessionsCheckOptions) error {
	if opts.ID != "" && opts.All {
		return usageErrorf("sessions check: give a session id or --all, not both")
	}
	projects, ids, err := checkScope(f, opts)
	if err != nil {
		return err
	}
	t := &checkTally{}
	for _, p := range projects {
		if err := checkProject(ctx, f, opts, p, ids, t); err != nil {
			return err
		}
	}
	if err := checkCheckpoints(f, opts, projects, t); err != nil {
		return err
	}
	sessions := fmt.Sprintf("%d %s", t.sessions, plural(t.sessions, "session", "sessions"))
	found := fmt.Sprintf("%d %s found in %s", t.found, plural(t.found, "problem", "problems"), sessions)
	switch {
	case t.found == 0:
		fmt.Fprintf(f.IO.ErrOut, "No problems in %s.\n", sessions)
		return nil
	case t.repaired == t.found:
		fmt.Fprintf(f.IO.ErrOut, "%s, all repaired.\n", found)
		return nil
	case opts.Repair:
		return fmt.Errorf("sessions check: %s, %d not repairable", found, t.found-t.repaired)
	}
	return withHint(fmt.Errorf("sessions check: %s", found),
		"`clawdcode sessions check --repair` mends what it can without dropping a record")
}

// checkScope is the projects to check and, with an id, the one session.
func checkScope(f *Factory, opts *SessionsCheckOptions) ([]*storage.Project, []string, error) {
	if opts.ID != "" {
		p, id, err := resolveSession(f, opts.ID)
		if err != nil {
			return nil, nil, err
		}
		return []*storage.Project{p}, []string{id}, nil
	}
	if opts.All {
		s, err := f.Store()
		if err != nil {
			return nil, nil, err
		}
		projects, err := s.Projects()
		return projects, nil, err
	}
	p, err := f.Project()
	if err != nil {
		return nil, nil, err
	}
	return []*storage.Project{p}, nil, nil
}

// checkProject checks (and repairs) the sessions ids of p (every one when
// ids is nil) and its index.
func checkProject(ctx context.Context, f *Factory, opts *SessionsCheckOptions, p *storage.Project, ids []string, t *checkTally) error {
	if ids == nil {
		files, err := p.SessionFiles()
		if err != nil {
			return err
		}
		for _, sf := range files {
			ids = append(ids, sf.ID)
		}
	}
	for _, id := range ids {
		if err := checkSession(ctx, f, opts, p, id, t); err != nil {
			return err
		}
	}
	drift, err := p.IndexDrift()
	if err != nil {
		return err
	}
	if len(drift) == 0 {
		return nil
	}
	fixed := false
	if opts.Repair {
		if err := p.RebuildIndex(); err != nil {
			fmt.Fprintf(f.IO.ErrOut, "clawdcode: warning: %v\n", err)
		} else {
			fixed = true
			f.Logger().Info("sessions check: index rebuilt", "project", p.Root, "drift", len(drift))
		}
	}
	for _, d := range drift {
		t.note(f.IO.Out, filepath.Join(p.Dir, "index.json"), d, fixed, opts.Repair)
	}
	return nil
}

// checkSession checks one session, and repairs it when asked.
func checkSession(ctx context.Context, f *Factory, opts *SessionsCheckOptions, p *storage.Project, id string, t *checkTally) error {
	t.sessions++
	c, err := storage.CheckSession(ctx, p.Path(id), id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil // removed since it was listed
	}
	if err != nil {
		return err
	}
	if opts.Repair && len(c.Problems) > 0 {
		c, err = p.Repair(ctx, id)
		if errors.Is(err, storage.ErrSessionBusy) {
			return withHint(err, busyHint)
		}
		if err != nil {
			return err
		}
		logRepair(f, c)
	}
	for _, pr := range c.Problems {
		where := fmt.Sprintf("%s:%d", id, pr.Line)
		what := pr.Kind + ": " + pr.Detail
		if pr.UUID != "" {
			what += " (uuid " + pr.UUID + ")"
		}
		t.note(f.IO.Out, where, what, opts.Repair && pr.Fixable, opts.Repair)
	}
	return nil
}

// logRepair writes what a repair did to the log.
func logRepair(f *Factory, c *storage.Checked) {
	kinds := map[string]int{}
	for _, pr := range c.Problems {
		if pr.Fixable {
			kinds[pr.Kind]++
		}
	}
	args := []any{"session", c.ID}
	for k, n := range kinds {
		args = append(args, k, n)
	}
	f.Logger().Info("sessions check: session repaired", args...)
}

// note prints one problem and counts it.
func (t *checkTally) note(w io.Writer, where, what string, fixed, repairing bool) {
	t.found++
	suffix := ""
	switch {
	case fixed:
		t.repaired++
		suffix = " — repaired"
	case repairing:
		suffix = " — not repairable"
	}
	fmt.Fprintf(w, "%s: %s%s\n", where, what, suffix)
}

// checkCheckpoints reports (and with --repair deletes) checkpoint data
// whose session no longer exists.
func checkCheckpoints(f *Factory, opts *SessionsCheckOptions, projects []*storage.Project, t *checkTally) error {
	if opts.ID != "" {
		return nil // one session: its checkpoints are not orphans
	}
	s, err := f.Store()
	if err != nil {
		return err
	}
	var dirs []string // nil with --all: every project directory, gone ones included
	if !opts.All {
		for _, p := range projects {
			dirs = append(dirs, filepath.Base(p.Dir))
		}
	}
	orphans, err := checkpoint.Orphans(s.Home(), dirs, func(projectDir, id string) bool {
		_, err := os.Lstat(filepath.Join(s.Home(), "projects", projectDir, id+".jsonl"))
		return err == nil
	})
	if err != nil {
		return err
	}
	for _, dir := range orphans {
		fixed := false
		if opts.Repair {
			if err := os.RemoveAll(dir); err != nil {
				fmt.Fprintf(f.IO.ErrOut, "clawdcode: warning: remove %s: %v\n", dir, err)
			} else {
				fixed = true
				f.Logger().Info("sessions check: orphan checkpoints removed", "dir", dir)
			}
		}
		t.note(f.IO.Out, dir, "checkpoint data of a session that no longer exists", fixed, opts.Repair)
	}
	return nil
}
