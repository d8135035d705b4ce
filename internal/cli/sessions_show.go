package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/termtext"
	"github.com/spf13/cobra"
)

// Export formats of `sessions export`.
const (
	ExportMarkdown = "markdown"
	ExportJSON     = "json"
	ExportJSONL    = "jsonl"
)

// SessionsShowOptions are the arguments of `sessions show`.
type SessionsShowOptions struct {
	ID   string
	Full bool
}

// NewCmdSessionsShow builds `sessions show <id>`; runF replaces the behaviour in tests.
func NewCmdSessionsShow(f *Factory, runF func(context.Context, *SessionsShowOptions) error) *cobra.Command {
	opts := &SessionsShowOptions{}
	cmd := &cobra.Command{
		Use:   "show <id>",
		Short: "Show a session as readable text",
		Long: `Show the live context of a session: what a resume would restore, with
the compaction summary in place of the history it replaced. --full shows
every record, the history before each compaction included.`,
		Args: exactArgs(1, "a session id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return sessionsShow(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Full, "full", false, "include the history before compactions")
	return cmd
}

func sessionsShow(ctx context.Context, f *Factory, opts *SessionsShowOptions) error {
	p, id, err := resolveSession(f, opts.ID)
	if err != nil {
		return err
	}
	// A transcript is for reading: what the model and the tools wrote is
	// shown, never obeyed, whether it goes to a terminal or through a pager.
	// The exact bytes are what `sessions export --format jsonl` is for.
	safe := termtext.NewWriter(f.IO.Out)
	defer safe.Flush() // after the returns below have flushed w
	w := bufio.NewWriter(safe)
	t := &textTranscript{w: w}
	info := sessionInfo(p, id)
	fmt.Fprintf(w, "session %s", id)
	if info.Title != "" {
		fmt.Fprintf(w, " · %s", termtext.Line(termtext.Flatten(info.Title, 80)))
	}
	if info.Parent != "" {
		// A subagent's transcript: where it came from, and how to see it.
		fmt.Fprintf(w, "\nsubagent of session %s (clawdcode sessions show %s)", info.Parent, termtext.ShortID(info.Parent))
	}
	fmt.Fprintf(w, "\nproject %s\n\n", termtext.Line(p.Root))

	warn := warnTo(f.IO.ErrOut)
	if opts.Full {
		err = storage.ReadAll(ctx, p.Path(id), func(_ int64, r *storage.Record) error {
			t.record(r)
			return nil
		}, func(msg string) {
			_ = w.Flush() // keep warnings in place relative to the transcript
			warn(msg)
		})
		if err != nil {
			return err // "read session: …" naming the file, hence the session
		}
		return w.Flush()
	}

	// One record at a time: the live context may hold records of
	// hundreds of megabytes, and only their previews are printed.
	err = storage.StreamLive(ctx, p.Path(id), func(summary *storage.Record) error {
		if summary != nil {
			t.summary(summary) // the summary in force first, the older ones are gone
		}
		return nil
	}, func(lr storage.LiveRecord) error {
		if !lr.Record.IsBoundary() && !lr.Record.IsSummary() {
			t.record(lr.Record)
		}
		return nil
	}, func(msg string) {
		_ = w.Flush() // keep warnings in place relative to the transcript
		warn(msg)
	})
	if err != nil {
		return err // "load session <file>: …"
	}
	return w.Flush()
}

// SessionsExportOptions are the arguments of `sessions export`.
type SessionsExportOptions struct {
	ID     string
	Format string
}

// NewCmdSessionsExport builds `sessions export <id>`; runF replaces the behaviour in tests.
func NewCmdSessionsExport(f *Factory, runF func(context.Context, *SessionsExportOptions) error) *cobra.Command {
	opts := &SessionsExportOptions{}
	cmd := &cobra.Command{
		Use:   "export <id>",
		Short: "Write a whole session to stdout (markdown, json or jsonl)",
		Args:  exactArgs(1, "a session id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if !slices.Contains([]string{ExportMarkdown, ExportJSON, ExportJSONL}, opts.Format) {
				return usageErrorf("invalid --format %q: want markdown, json or jsonl", opts.Format)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return sessionsExport(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", ExportMarkdown, "markdown, json or jsonl")
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(
		[]string{ExportMarkdown, ExportJSON, ExportJSONL}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// sessionsExport streams every record: a session can be far larger than
// memory, so nothing is collected first.
func sessionsExport(ctx context.Context, f *Factory, opts *SessionsExportOptions) error {
	p, id, err := resolveSession(f, opts.ID)
	if err != nil {
		return err
	}
	// Markdown on a terminal is read there; redirected, it is data and
	// keeps its bytes (the json formats escape control characters).
	out := f.IO.TermOut()
	defer out.Flush() // after the returns below have flushed w
	w := bufio.NewWriterSize(out, 64<<10)
	warn := warnTo(f.IO.ErrOut)
	var each func(r *storage.Record) error
	switch opts.Format {
	case ExportMarkdown:
		md := &markdownTranscript{w: w}
		md.header(id, sessionTitle(p, id), p.Root)
		each = func(r *storage.Record) error { md.record(r); return nil }
	case ExportJSONL:
		each = func(r *storage.Record) error {
			b, err := json.Marshal(r)
			if err != nil {
				return err
			}
			w.Write(b)
			return w.WriteByte('\n')
		}
	case ExportJSON:
		head, err := json.Marshal(struct {
			SessionID string `json:"session_id"`
			Project   string `json:"project"`
		}{id, p.Root})
		if err != nil {
			return err
		}
		// {"session_id":…,"project":…,"records":[ … ]}
		w.Write(head[:len(head)-1])
		w.WriteString(`,"records":[`)
		first := true
		each = func(r *storage.Record) error {
			b, err := json.Marshal(r)
			if err != nil {
				return err
			}
			if !first {
				w.WriteByte(',')
			}
			first = false
			_, err = w.Write(b)
			return err
		}
	}
	err = storage.ReadAll(ctx, p.Path(id), func(_ int64, r *storage.Record) error { return each(r) }, warn)
	if err != nil {
		return fmt.Errorf("export session %s: %w", id, err)
	}
	if opts.Format == ExportJSON {
		w.WriteString("]}\n")
	}
	return w.Flush()
}
