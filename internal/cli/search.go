package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/clawdcode/clawdcode/internal/search"
	"github.com/spf13/cobra"
)

// SearchOptions are the flags of `clawdcode search` (CONTRACT.md section 6).
type SearchOptions struct {
	Query   string
	All     bool
	JSON    bool
	Limit   int
	Session string
}

// NewCmdSearch builds `clawdcode search`; runF replaces the behaviour in tests.
func NewCmdSearch(f *Factory, runF func(context.Context, *SearchOptions) error) *cobra.Command {
	opts := &SearchOptions{}
	cmd := &cobra.Command{
		Use:   "search [flags] <query>",
		Short: "Search the stored sessions",
		Long: `Search the text of this project's sessions: user and assistant messages,
tool inputs and tool outputs, history from before compactions included.
Every word is required; a "quoted phrase" must match as a phrase. Hits come
best first (BM25), each with a one-line snippet.`,
		Example: `  clawdcode search flaky test
  clawdcode search '"context window"' --all --json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Query = strings.Join(args, " ")
			if opts.Limit <= 0 || opts.Limit > search.MaxLimit {
				return usageErrorf("invalid --limit %d: must be 1 to %d", opts.Limit, search.MaxLimit)
			}
			if opts.Session != "" && !validIDPrefix(opts.Session) {
				return usageErrorf("invalid --session %q: ids are letters, digits and '-'", opts.Session)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return searchRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.All, "all", false, "search every project's sessions")
	fl.BoolVar(&opts.JSON, "json", false, "print a JSON array of hits")
	fl.IntVar(&opts.Limit, "limit", search.DefaultLimit, "at most `n` hits")
	fl.StringVar(&opts.Session, "session", "", "only the sessions whose id starts with `prefix`")
	return cmd
}

func validIDPrefix(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func searchRun(ctx context.Context, f *Factory, opts *SearchOptions) error {
	st, err := f.Store()
	if err != nil {
		return err
	}
	q := search.Query{Text: opts.Query, Session: opts.Session, Limit: opts.Limit}
	if !opts.All {
		p, err := f.Project()
		if err != nil {
			return err
		}
		q.Project = p.Root
	}
	ix := search.New(st, warnTo(f.IO.ErrOut))
	if f.IO.IsStderrTTY() {
		ix.OnProgress(indexProgress(f.IO.ErrOut))
	}
	res, err := ix.Find(ctx, q)
	if errors.Is(err, search.ErrEmptyQuery) {
		return &UsageError{Err: err, Message: fmt.Sprintf("nothing to search for in %q: give at least one word", opts.Query)}
	}
	if err != nil {
		return err
	}
	more := search.MoreLine(res)
	if opts.JSON {
		hits := res.Hits
		if hits == nil {
			hits = []search.Hit{}
		}
		enc := json.NewEncoder(f.IO.Out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(hits); err != nil {
			return err
		}
		if more != "" {
			// The array is CONTRACT.md's, as it is: the note goes to stderr.
			_, err = fmt.Fprintf(f.IO.ErrOut, "clawdcode: %s\n", more)
		}
		return err
	}
	if err := writeHits(f, res.Hits, opts.All, opts.Query); err != nil {
		return err
	}
	if more != "" {
		_, err = fmt.Fprintln(f.IO.Out, more)
	}
	return err
}

// indexProgress shows an index build that takes more than a second on
// stderr (a terminal): files and bytes read so far, and the share done.
// The line is cleared when the build ends.
func indexProgress(w io.Writer) func(search.Progress) {
	shown := false
	return func(p search.Progress) {
		switch {
		case p.Done:
			if shown {
				fmt.Fprint(w, "\r\033[K")
			}
		case p.Elapsed >= time.Second:
			shown = true
			fmt.Fprintf(w, "\r\033[Kindexing sessions: %d of %d files, %d of %d MB, %d%%",
				p.Files, p.TotalFiles, p.Bytes>>20, p.TotalBytes>>20, p.Bytes*100/max(p.TotalBytes, 1))
		}
	}
}

// writeHits prints hits as text (search.WriteText), or says there are none.
func writeHits(f *Factory, hits []search.Hit, all bool, query string) error {
	if len(hits) == 0 {
		_, err := fmt.Fprintln(f.IO.Out, search.NoMatch(query, all))
		return err
	}
	now, tty := time.Now(), f.IO.IsStdoutTTY()
	// Snippets quote session content: WriteText makes them inert (--json
	// for the exact text), then highlights the words, on a terminal only.
	return search.WriteText(f.IO.Out, hits, search.TextOptions{
		WithProject: all, Query: query, Bold: tty,
		When: func(t time.Time) string { return formatWhen(t, now, tty) },
	})
}
