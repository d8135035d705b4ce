package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/clawdcode/clawdcode/internal/skills"
)

// Skills is the run's Agent Skills (internal/skills): the user's, and the
// project's when they are trusted (CONTRACT.md §7 — they come with the
// repository and may let tools run without asking): on record in
// trusted-projects.json for these skills, or --trust-project, or a yes to
// the question the REPL asks. Untrusted, they are not offered, and one
// warning line says so. Built once.
func (f *Factory) Skills(ctx context.Context) *skills.Set {
	set, _ := f.skills.get(func() (*skills.Set, error) {
		home, err := f.HomeDir()
		if err != nil {
			return nil, nil
		}
		p, err := f.Project()
		if err != nil {
			return nil, nil
		}
		warn := warnTo(f.IO.ErrOut)
		var project, user []skills.Dir
		for _, d := range skills.Dirs(p.Root, home) {
			if d.Project {
				project = append(project, d)
			} else {
				user = append(user, d)
			}
		}
		theirs := skills.Load(project, nil)
		if len(theirs) == 0 || f.skillsTrusted(ctx, p.Root, theirs) {
			return skills.NewSet(append(project, user...), warn), nil
		}
		var names []string
		for _, sk := range theirs {
			names = append(names, sk.Name)
		}
		warn(fmt.Sprintf("the project's skills (%s) are not offered: they are not trusted (%s trusts them for a run; the REPL asks)",
			strings.Join(names, ", "), "--trust-project"))
		set := skills.NewSet(user, warn)
		set.Ignored = theirs
		return set, nil
	})
	return set
}

// skillsTrusted decides about the project's skills as about its config
// file (decideTrust): the question lists each skill and what it lets run
// without asking; the answer holds until a skill is added, moved or
// allowed more.
func (f *Factory) skillsTrusted(ctx context.Context, root string, list []skills.Skill) bool {
	trusted, _ := f.decideTrust(ctx, trustSubject{
		path:     filepath.Join(root, ".clawdcode", "skills"),
		sum:      skills.Sum(list),
		asks:     skills.Asks(list),
		question: "Offer these skills? (y = offer them, N = not this time)",
	}, f.trustFlag, f.trustCanAsk)
	return trusted
}
