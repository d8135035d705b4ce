package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/clawdcode/clawdcode/internal/tools"
)

// Permissions is the engine's part that reads and changes the permission
// policy its tools are checked by (Config.Permissions): the mode
// (Shift-Tab in the REPL, an editor's mode menu), the rules of this
// session, a rule saved to the project. What a mode or a rule allows is
// the policy's (tools.Permissions) alone. Without a policy (nil) nothing
// that needs permission may run, the mode stays default and no rule can
// be added. A plan the model hands over in plan mode is put to the user
// by the front end's PlanApprover (plan.go).
type Permissions struct {
	p     *tools.Permissions
	e     *Engine
	plans PlanApprover
}

// Summary is the policy in force, counted (/status).
func (p *Permissions) Summary() tools.PermissionSummary {
	if p.p == nil {
		return tools.PermissionSummary{}
	}
	return p.p.Summary()
}

// Mode is the current permission mode.
func (p *Permissions) Mode() tools.Mode { return p.p.Mode() }

// SetMode switches to m; it reports whether the mode is now m (bypass only
// when the run was started with --dangerously-skip-permissions).
func (p *Permissions) SetMode(m tools.Mode) bool { return p.p.SetMode(m) }

// CycleMode switches to the next mode and returns it.
func (p *Permissions) CycleMode() tools.Mode { return p.p.CycleMode() }

// SessionRules are the rules allowed for this session only.
func (p *Permissions) SessionRules() []tools.Rule {
	if p.p == nil {
		return nil
	}
	return p.p.SessionRules()
}

// AddSessionRule allows r until the session changes.
func (p *Permissions) AddSessionRule(r tools.Rule) {
	if p.p != nil {
		p.p.AddSessionRule(r)
	}
}

// RemoveSessionRule forgets one of this session's rules.
func (p *Permissions) RemoveSessionRule(r tools.Rule) bool {
	return p.p != nil && p.p.RemoveSessionRule(r)
}

// SaveProjectRule saves r to the project's config file and allows it.
func (p *Permissions) SaveProjectRule(r tools.Rule) error {
	if p.p == nil {
		return errors.New("no permission policy to add the rule to")
	}
	return p.p.SaveRule(r)
}

// AddDir lets the tools read and change files under dir as under the
// project (/add-dir): Write and Edit there count as inside the project
// (a whole-tool allowance and accept-edits cover them) and the sandbox's
// commands may write there. dir may be relative to the project root or
// start with ~/. The model hears of it with the next message. It returns
// the directory added, absolute.
func (p *Permissions) AddDir(dir string) (string, error) {
	if p.p == nil {
		return "", errors.New("no permission policy to add the directory to")
	}
	abs, err := ResolveDir(p.e.cfg.Project.Root, dir)
	if err != nil {
		return "", err
	}
	p.p.AddDir(abs)
	if p.e.cfg.AddWritable != nil {
		p.e.cfg.AddWritable(abs)
	}
	p.e.notes = append(p.e.notes, "[The user added the directory "+abs+": you may read and change files there as in the project.]")
	return abs, nil
}

// Dirs are the directories added to the project's (--add-dir, /add-dir).
func (p *Permissions) Dirs() []string {
	if p.p == nil {
		return nil
	}
	return p.p.Dirs()
}

// ResolveDir makes dir (relative to root, or ~/…) absolute and checks that
// it is a directory: what --add-dir and /add-dir take.
func ResolveDir(root, dir string) (string, error) {
	dir = strings.TrimSpace(dir)
	if dir == "" {
		return "", errors.New("name a directory")
	}
	if rest, ok := strings.CutPrefix(dir, "~"); ok && (rest == "" || rest[0] == '/') {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%s: %w", dir, err)
		}
		dir = home + rest
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	dir = filepath.Clean(dir)
	fi, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s: no such directory", dir)
		}
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	return dir, nil
}
