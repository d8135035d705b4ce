package slash

import (
	"context"
	"fmt"
	"strings"

	"github.com/clawdcode/clawdcode/internal/skills"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

func skillsCommand() Command {
	return Command{
		Name:    "skills",
		Summary: "list the Agent Skills the model may use (SKILL.md folders of the project and of CLAWDCODE_HOME)",
		Run: func(_ context.Context, env *Env, _ string) error {
			_, err := fmt.Fprint(env.IO.Out, formatSkills(env.Skills.List(), env.Skills.Ignored()))
			return err
		},
	}
}

// formatSkills renders /skills: each skill offered with its description,
// what it lets run without asking and where it is; then the project's
// skills not offered.
func formatSkills(offered, ignored []skills.Skill) string {
	var b strings.Builder
	if len(offered) == 0 {
		b.WriteString("No skills offered.\n")
	}
	for _, sk := range offered {
		fmt.Fprintf(&b, "%s — %s\n", termtext.Line(sk.Name), termtext.Line(termtext.Flatten(sk.Description, 0)))
		if len(sk.AllowedTools) > 0 {
			fmt.Fprintf(&b, "    runs without asking while in use: %s\n", termtext.Line(strings.Join(sk.AllowedTools, ", ")))
		}
		fmt.Fprintf(&b, "    %s\n", termtext.Line(sk.Path))
	}
	if len(ignored) > 0 {
		var names []string
		for _, sk := range ignored {
			names = append(names, sk.Name)
		}
		fmt.Fprintf(&b, "Not offered (the project's skills are not trusted; --trust-project, or answer the question at start): %s\n",
			termtext.Line(strings.Join(names, ", ")))
	}
	b.WriteString("A skill is a folder with a SKILL.md (front matter name, description, allowed-tools): .clawdcode/skills/<name>/ or .claude/skills/<name>/ in the project, $CLAWDCODE_HOME/skills/<name>/.\n")
	return b.String()
}

// AddSkills makes each skill a command, as Claude Code does: "/pdf fill
// form.pdf" asks the model to use the skill pdf (through the Skill tool,
// so that its allowed-tools hold while it is in use) for what follows. A
// name a command has already stays the command's; a skill added later
// is offered to the model, and is a command from the next start.
func (r *Registry) AddSkills(list []skills.Skill) {
	for _, sk := range list {
		if _, taken := r.Lookup(sk.Name); taken {
			continue
		}
		name := sk.Name
		r.Register(Command{
			Name:    name,
			Args:    "[what for]",
			Summary: termtext.Flatten(sk.Description, 0) + " (skill)",
			Prompt:  func(args string) string { return skillPrompt(name, args) },
		})
	}
}

// skillPrompt is the message "/name args" sends for a skill.
func skillPrompt(name, args string) string {
	ask := fmt.Sprintf("Use the %q skill: call Skill with name %q first, then follow its instructions", name, name)
	if args = strings.TrimSpace(args); args == "" {
		return ask + "."
	}
	return ask + " for this:\n\n" + args
}
