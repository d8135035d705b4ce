package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/spf13/cobra"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

// NewCmdSessions builds `clawdcode sessions` and its subcommands; alone it
// lists this project's sessions.
func NewCmdSessions(f *Factory) *cobra.Command {
	opts := &SessionsListOptions{}
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List, show, export and remove saved sessions",
		Long: `Sessions are stored per project under $CLAWDCODE_HOME/projects/.
Every command takes a full session id or a unique prefix of one.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return sessionsList(cmd.Context(), f, opts)
		},
	}
	addListFlags(cmd, opts)
	cmd.AddCommand(NewCmdSessionsList(f, nil))
	cmd.AddCommand(NewCmdSessionsShow(f, nil))
	cmd.AddCommand(NewCmdSessionsExport(f, nil))
	cmd.AddCommand(NewCmdSessionsRm(f, nil))
	cmd.AddCommand(NewCmdSessionsCheck(f, nil))
	return cmd
}

// SessionsListOptions are the flags of `sessions [list]`.
type SessionsListOptions struct {
	All  bool
	JSON bool
	// Remote lists the sessions of the [sync] store instead.
	Remote bool
}

func addListFlags(cmd *cobra.Command, opts *SessionsListOptions) {
	cmd.Flags().BoolVar(&opts.All, "all", false, "list the sessions of every project")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array")
	cmd.Flags().BoolVar(&opts.Remote, "remote", false, "list the sessions of the [sync] store")
}

// NewCmdSessionsList builds `sessions list`; runF replaces the behaviour in tests.
func NewCmdSessionsList(f *Factory, runF func(context.Context, *SessionsListOptions) error) *cobra.Command {
	opts := &SessionsListOptions{}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List this project's sessions, newest first",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return sessionsList(cmd.Context(), f, opts)
		},
	}
	addListFlags(cmd, opts)
	return cmd
}

// listJSONOptions write `sessions list --json` as encoding/json's
// Encoder with SetIndent("", "  ") does.
var listJSONOptions = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsontext.Multiline(true), jsontext.WithIndent("  "))

// sessionRow is one session of `sessions list --json`.
type sessionRow struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
	Messages int       `json:"messages"`
	Tokens   int       `json:"tokens"`
	Project  string    `json:"project"`
	Parent   string    `json:"parent,omitempty"`
}

func sessionsList(ctx context.Context, f *Factory, opts *SessionsListOptions) error {
	if opts.Remote {
		return sessionsListRemote(ctx, f, opts)
	}
	infos, err := listSessions(f, opts.All)
	if err != nil {
		return err
	}
	infos = storage.UnderParents(infos)
	if opts.JSON {
		rows := make([]sessionRow, 0, len(infos))
		for _, s := range infos {
			rows = append(rows, sessionRow{s.ID, s.Title, s.Created.UTC(), s.Updated.UTC(), s.Messages, s.Tokens, s.Project, s.Parent})
		}
		// encoding/json's indented output, by the v2 implementation: for
		// 10,000 sessions encoding/json was a quarter of a warm listing.
		w := bufio.NewWriter(f.IO.Out)
		if err := jsonv2.MarshalWrite(w, rows, listJSONOptions); err != nil {
			return err
		}
		w.WriteByte('\n')
		return w.Flush()
	}
	if len(infos) == 0 {
		if opts.All {
			fmt.Fprintln(f.IO.ErrOut, "No sessions yet.")
		} else {
			fmt.Fprintln(f.IO.ErrOut, "No sessions in this project yet. Start one with `clawdcode`.")
		}
		return nil
	}
	now := time.Now()
	w := bufio.NewWriter(f.IO.Out)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	header := "ID\tUPDATED\tMESSAGES\tTITLE"
	if opts.All {
		header += "\tPROJECT"
	}
	fmt.Fprintln(tw, header)
	for _, s := range infos {
		title := termtext.Line(termtext.Flatten(s.Title, 60))
		if title == "" {
			title = "(untitled)"
		}
		title = storage.SubagentTitle(s, title)
		line := fmt.Sprintf("%s\t%s\t%d\t%s", termtext.ShortID(s.ID), formatWhen(s.Updated, now, f.IO.IsStdoutTTY()), s.Messages, title)
		if opts.All {
			line += "\t" + termtext.Line(s.Project)
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return w.Flush()
}

// listSessions returns this project's sessions, or every project's, newest
// updated first.
func listSessions(f *Factory, all bool) ([]storage.SessionInfo, error) {
	var projects []*storage.Project
	if all {
		s, err := f.Store()
		if err != nil {
			return nil, err
		}
		if projects, err = s.Projects(); err != nil {
			return nil, fmt.Errorf("list projects: %w", err)
		}
	} else {
		p, err := f.Project()
		if err != nil {
			return nil, err
		}
		projects = []*storage.Project{p}
	}
	var infos []storage.SessionInfo
	for _, p := range projects {
		list, err := p.List()
		if err != nil {
			return nil, fmt.Errorf("project %s: %w", p.Root, err) // storage's error says "list sessions"
		}
		for _, s := range list {
			if s.Project == "" {
				s.Project = p.Root
			}
			infos = append(infos, s)
		}
	}
	slices.SortStableFunc(infos, func(a, b storage.SessionInfo) int { return b.Updated.Compare(a.Updated) })
	return infos, nil
}

// resolveSession maps what the user typed (an id, a prefix of one, or the
// start of a title: storage.Match) to a session of the current project. Every failure here is the user's (exit status 2).
func resolveSession(f *Factory, idOrPrefix string) (*storage.Project, string, error) {
	p, err := f.Project()
	if err != nil {
		return nil, "", err
	}
	id, err := p.Resolve(strings.TrimSpace(idOrPrefix))
	if err != nil {
		return nil, "", sessionIDError(idOrPrefix, err)
	}
	return p, id, nil
}

// sessionIDError words a Resolve failure for the user.
func sessionIDError(idOrPrefix string, err error) error {
	var amb *storage.AmbiguousIDError
	switch {
	case errors.As(err, &amb):
		return err // Describe lists the candidates
	case errors.Is(err, storage.ErrNotFound):
		return &UsageError{
			Err:   err, // storage.Match's words, the same as /switch's
			Hints: []string{"`clawdcode sessions` lists this project's sessions"},
		}
	case errors.Is(err, storage.ErrInvalidID):
		return &UsageError{Err: err, Message: fmt.Sprintf("invalid session id %q: ids are letters, digits and '-'", idOrPrefix)}
	}
	return fmt.Errorf("resolve session %q: %w", idOrPrefix, err)
}

// sessionTitle looks a session's title up in the project index ("" when
// unknown), for that session alone (not a listing of the project's
// thousands); a failing index only costs the title.
func sessionTitle(p *storage.Project, id string) string {
	return sessionInfo(p, id).Title
}

// sessionInfo is the listing of session id of p (zero when it has none),
// asked of the index for that session alone.
func sessionInfo(p *storage.Project, id string) storage.SessionInfo {
	infos, err := p.Infos([]string{id})
	if err != nil {
		return storage.SessionInfo{}
	}
	return infos[id]
}

// formatWhen renders a time relative to now on a terminal, and as RFC 3339
// UTC for scripts.
func formatWhen(t, now time.Time, tty bool) string {
	if t.IsZero() {
		return "-"
	}
	if !tty {
		return t.UTC().Format(time.RFC3339)
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
	return t.Local().Format("2006-01-02")
}

// warnTo returns a warning printer for storage's skipped-line warnings.
func warnTo(w io.Writer) func(string) {
	return func(msg string) { fmt.Fprintf(w, "clawdcode: warning: %s\n", termtext.Line(msg)) }
}
