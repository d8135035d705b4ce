package cli

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/repl"
	"github.com/clawdcode/clawdcode/internal/search"
	"github.com/clawdcode/clawdcode/internal/slash"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// replRun is the interactive front end: the session named by -c/-r (or a
// new one), then the REPL until /exit, Ctrl-D or a second Ctrl-C.
func replRun(ctx context.Context, f *Factory, opts *RootOptions) error {
	// The permission prompt is built before the engine that asks through
	// it, and handed to the REPL too, which links it to its spinner.
	var (
		asker     *repl.Asker
		toolAsker tools.Asker // stays a nil interface without a terminal
	)
	if f.IO.Interactive() {
		asker = repl.NewAsker(f.IO)
		toolAsker = asker
	}
	perms, err := f.Permissions(opts, toolAsker)
	if err != nil {
		return err
	}
	if asker != nil {
		// The dialog names the scoped rule "always" adds, and warns about
		// a write outside the project.
		asker.Propose = func(tool tools.Tool, input json.RawMessage) []string {
			var rules []string
			for _, r := range perms.Propose(tool, input) {
				rules = append(rules, r.String())
			}
			return rules
		}
		if p, err := f.Project(); err == nil {
			asker.Root = p.Root
		}
	}
	// A bare -r opens the /resume picker once the REPL runs, over a new
	// session until one is picked.
	pick := opts.Resume == resumePick
	if pick {
		opts.Resume = ""
	}
	eng, err := openEngine(ctx, f, opts, toolAsker, true, true)
	if err != nil {
		return err
	}
	linkAsker(asker, eng)
	home, err := f.HomeDir()
	if err != nil {
		_ = eng.Close()
		return err
	}
	// From here Ctrl-C cancels a turn, not the program: the REPL decides.
	f.handOverInterrupt()
	err = repl.Run(ctx, repl.Options{
		IO:          f.IO,
		Turns:       eng.Turns(),
		Parts:       slash.PartsOf(eng),
		Commands:    f.Commands(),
		Redactor:    f.redactor.Load(),
		Hints:       f.replHints,
		HistoryPath: filepath.Join(home, "history"),
		FirstPrompt: opts.Prompt,
		Asker:       asker,
		WatchMCP:    eng.MCP().Watch,
		PickSession: pick,

		SkipPermissions: opts.SkipPermissions,
		Modes:           eng.Permissions(),
		SearchSessions:  searchSessions(f),
		Spend:           todaySpend(f, eng.Turns()),
	})
	if errors.Is(err, slash.ErrExit) {
		err = nil
	}
	if cerr := eng.Close(); err == nil {
		err = cerr
	}
	noteSuggestions(f.IO.ErrOut, eng.Memory())
	return err
}

// linkAsker links the REPL's dialog to the engine (none without a
// terminal): a plan the model hands over (ExitPlanMode) is put to the
// user by it, and a question it puts runs the Notification hooks.
// Without a terminal a plan ends the turn.
func linkAsker(asker *repl.Asker, eng *agent.Engine) {
	if asker == nil {
		return
	}
	eng.Permissions().SetPlanApprover(asker)
	asker.Notify = func(ctx context.Context, tool string) {
		eng.Turns().Notify(ctx, agent.NotifyPermission, agent.PermissionMessage(tool))
	}
}

// searchSessions is the /resume picker's search over the sessions'
// content: clawdcode search's index, restricted to this project.
func searchSessions(f *Factory) repl.SessionSearch {
	return func(ctx context.Context, query string) ([]string, error) {
		p, err := f.Project()
		if err != nil {
			return nil, err
		}
		hits, err := search.New(p.Store(), nil).Search(ctx, search.Query{Text: query, Project: p.Root, Limit: 500})
		if err != nil {
			return nil, err
		}
		ids := make([]string, 0, len(hits))
		for _, h := range hits {
			ids = append(ids, h.SessionID)
		}
		return ids, nil
	}
}
