package cli

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/clawdcode/clawdcode/internal/repl"
	"github.com/clawdcode/clawdcode/internal/slash"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// replRun is the interactive front end: the session named by -c/-r (or a
// new one), then the REPL until /exit, Ctrl-D or a second Ctrl-C.
func replRun(ctx context.Context, f *Factory, opts *RootOptions) error {
	var asker tools.Asker
	if f.IO.Interactive() {
		asker = repl.NewAsker(f.IO)
	}
	eng, err := openEngine(ctx, f, opts, asker, true)
	if err != nil {
		return err
	}
	home, err := f.HomeDir()
	if err != nil {
		_ = eng.Close()
		return err
	}
	// From here Ctrl-C cancels a turn, not the program: the REPL decides.
	f.handOverInterrupt()
	err = repl.Run(ctx, repl.Options{
		IO:          f.IO,
		Engine:      eng,
		Commands:    slash.Default(),
		HistoryPath: filepath.Join(home, "history"),
		FirstPrompt: opts.Prompt,
	})
	if errors.Is(err, slash.ErrExit) {
		err = nil
	}
	if cerr := eng.Close(); err == nil {
		err = cerr
	}
	return err
}
