package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/clawdcode/clawdcode/internal/objstore"
	"github.com/clawdcode/clawdcode/internal/sessionsync"
	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/spf13/cobra"
)

// SyncOptions are the flags of `clawdcode sync`.
type SyncOptions struct {
	Push, Pull bool
	// From is a teammate's store (s3://bucket/prefix), pulled read-only.
	From string
}

// NewCmdSync builds `clawdcode sync`; runF replaces the behaviour in tests.
func NewCmdSync(f *Factory, runF func(context.Context, *SyncOptions) error) *cobra.Command {
	opts := &SyncOptions{}
	cmd := &cobra.Command{
		Use:   "sync [--pull|--push]",
		Short: "Exchange sessions with the object store named in [sync]",
		Long: `Push every record the store does not hold yet and pull what other machines
pushed (--push or --pull does one half). The store is the [sync] table of
$CLAWDCODE_HOME/config.toml; credentials come from AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY, and with CLAWDCODE_SYNC_KEY set everything is
encrypted before it leaves the machine. --from pulls a teammate's store,
read-only. See docs/sync.md.`,
		Example: `  clawdcode sync
  clawdcode sync --pull --from s3://team-bucket/alice`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.From != "" {
				if opts.Push {
					return usageErrorf("--from pulls a teammate's store, which is never pushed to: drop --push")
				}
				if _, err := objstore.ParseURL(opts.From); err != nil {
					return usageErrorf("invalid --from: %v", err)
				}
				opts.Pull = true
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return syncRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.Push, "push", false, "only push this machine's new records")
	fl.BoolVar(&opts.Pull, "pull", false, "only pull what other machines pushed")
	fl.StringVar(&opts.From, "from", "", "pull a teammate's store `s3://bucket/prefix`, read-only")
	return cmd
}

func syncRun(ctx context.Context, f *Factory, opts *SyncOptions) error {
	s, err := f.Syncer(opts.From)
	if err != nil {
		return err
	}
	both := opts.Push == opts.Pull
	rep := &sessionsync.Report{}
	if both || opts.Pull {
		if err := s.Pull(ctx, rep); err != nil {
			return err
		}
	}
	if both || opts.Push {
		if err := s.Push(ctx, rep); err != nil {
			return err
		}
	}
	printReport(f.IO.Out, rep, both || opts.Pull, both || opts.Push)
	for _, n := range rep.Notes {
		warnTo(f.IO.ErrOut)("sync: " + n)
	}
	return rep.Err()
}

// printReport says what a sync did, one line per half and one per fork.
func printReport(w io.Writer, rep *sessionsync.Report, pulled, pushed bool) {
	if pulled {
		fmt.Fprintf(w, "pulled: %d new sessions, %d updated (%s)\n", rep.New, rep.Pulled, humanBytes(rep.PulledBytes))
	}
	if pushed {
		fmt.Fprintf(w, "pushed: %d sessions (%s)\n", rep.Pushed, humanBytes(rep.PushedBytes))
	}
	for _, fk := range rep.Forks {
		fmt.Fprintf(w, "forked: session %s changed here and on another machine; this machine's %d records continue in %s %q (clawdcode -r %s)\n",
			fk.Session, fk.Records, fk.Fork, termtext.Line(fk.Title), fk.Fork)
	}
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// syncTimeoutEnv bounds the wait for the store's answer to one request.
const syncTimeoutEnv = "CLAWDCODE_SYNC_TIMEOUT"

// Syncer is the sync with the store of the user's [sync] table, or with
// from (a teammate's store, pulled read-only, on the [sync] table's
// server) when it is given.
func (f *Factory) Syncer(from string) (*sessionsync.Syncer, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	st, err := f.Store()
	if err != nil {
		return nil, err
	}
	table := cfg.Sync
	if table == nil && from == "" {
		return nil, &UsageError{Err: sessionsync.ErrNotConfigured}
	}
	url, endpoint, region := from, "", ""
	if table != nil {
		endpoint, region = table.Endpoint, table.Region
		if url == "" {
			url = table.URL
		}
	}
	loc, err := objstore.ParseURL(url)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	timeout, err := parseTimeout(f.Getenv(syncTimeoutEnv))
	if err != nil {
		return nil, usageErrorf("invalid %s %q: want a duration such as \"30s\"", syncTimeoutEnv, f.Getenv(syncTimeoutEnv))
	}
	obj, err := objstore.New(objstore.Config{
		Location: loc, Endpoint: endpoint, Region: region, Timeout: timeout,
		AccessKey:    strings.TrimSpace(f.Getenv("AWS_ACCESS_KEY_ID")),
		SecretKey:    strings.TrimSpace(f.Getenv("AWS_SECRET_ACCESS_KEY")),
		SessionToken: strings.TrimSpace(f.Getenv("AWS_SESSION_TOKEN")),
	})
	if err != nil {
		return nil, err
	}
	return sessionsync.New(sessionsync.Options{
		Store: st, Objects: obj, Location: loc.String(), Endpoint: endpoint,
		Passphrase: f.Getenv(sessionsync.KeyEnv),
		ReadOnly:   from != "",
		Warn:       warnTo(f.IO.ErrOut),
	}), nil
}

// autoSyncExitWait bounds how long a run's exit waits for the push of its
// last turn; a push still running then is finished by the next run.
const autoSyncExitWait = 2 * time.Second

// afterTurn is the engine's AfterTurn for the project p: the turn's push
// when [sync] auto is on, else nil.
func (f *Factory) afterTurn(p *storage.Project) func(string) {
	cfg, err := f.Config()
	if err != nil || cfg.Sync == nil || !cfg.Sync.Auto {
		return nil
	}
	a := sessionsync.NewAuto(p.Root, func(context.Context) (*sessionsync.Syncer, error) { return f.Syncer("") })
	f.autoSync.Store(a)
	return a.TurnEnded
}

// finishAutoSync gives the background push a bounded moment at exit and
// says, one line each, what it could not do.
func (f *Factory) finishAutoSync() {
	a := f.autoSync.Load()
	if a == nil {
		return
	}
	for _, line := range a.Close(autoSyncExitWait) {
		warnTo(f.IO.ErrOut)(f.redactString(line))
	}
}

// remoteRow is one session of `sessions list --remote --json`.
type remoteRow struct {
	sessionRow
	Size  int64 `json:"size"`
	Local int64 `json:"local"` // bytes of it here; -1: not here
}

// sessionsListRemote lists the [sync] store's sessions: this project's,
// or every project's with --all; HERE says whether this machine has each
// as the store does (yes), with fewer bytes (behind: a pull brings them),
// more (ahead: a push sends them), or not at all (no).
func sessionsListRemote(ctx context.Context, f *Factory, opts *SessionsListOptions) error {
	s, err := f.Syncer("")
	if err != nil {
		return err
	}
	list, err := s.Remote(ctx)
	if err != nil {
		return err
	}
	p, err := f.Project()
	if err != nil {
		return err
	}
	rows := make([]remoteRow, 0, len(list))
	for _, rs := range list {
		if opts.All || rs.Project == p.Root {
			rows = append(rows, remoteRow{sessionRow{rs.ID, rs.Title, rs.Created.UTC(), rs.Updated.UTC(), rs.Messages, 0, rs.Project, rs.Parent}, rs.Size, rs.Local})
		}
	}
	if opts.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(f.IO.ErrOut, "The store holds no sessions of this project (--all: of any project).")
		return nil
	}
	now := time.Now()
	tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
	header := "ID\tUPDATED\tMESSAGES\tHERE\tTITLE"
	if opts.All {
		header += "\tPROJECT"
	}
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		here := "no"
		switch {
		case r.Local == r.Size:
			here = "yes"
		case r.Local > r.Size:
			here = "ahead"
		case r.Local >= 0:
			here = "behind"
		}
		title := termtext.Line(termtext.Flatten(r.Title, 60))
		if title == "" {
			title = "(untitled)"
		}
		line := fmt.Sprintf("%s\t%s\t%d\t%s\t%s", termtext.ShortID(r.ID), formatWhen(r.Updated, now, f.IO.IsStdoutTTY()), r.Messages, here, title)
		if opts.All {
			line += "\t" + termtext.Line(r.Project)
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}
