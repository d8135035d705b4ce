package slash

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/clawdcode/clawdcode/internal/tools"
)

func permissionsCommand() Command {
	return Command{
		Name:    "permissions",
		Args:    "[add [--project] <rule> | rm <n>]",
		Summary: "list the permission rules in force and where each came from; add or remove one for this session (--project: save it)",
		Run: func(_ context.Context, env *Env, args string) error {
			verb, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
			rest = strings.TrimSpace(rest)
			switch verb {
			case "":
				listRules(env)
				return nil
			case "add":
				return addRule(env, rest)
			case "rm":
				return removeRule(env, rest)
			}
			return fmt.Errorf("%w: /permissions [add [--project] <rule> | rm <n>], not %q", ErrUsage, verb)
		},
	}
}

// ruleRow is one listed rule: deny rules first, then allow; numbered.
type ruleRow struct {
	rule    tools.Rule
	deny    bool
	source  string
	session bool
}

func rulesInForce(env *Env) []ruleRow {
	var deny, allow []ruleRow
	for _, r := range env.About.Rules {
		row := ruleRow{rule: r.Rule, deny: r.Deny, source: r.Source}
		if r.Deny {
			deny = append(deny, row)
		} else {
			allow = append(allow, row)
		}
	}
	for _, r := range env.Permissions.SessionRules() {
		allow = append(allow, ruleRow{rule: r, source: "this session", session: true})
	}
	return append(deny, allow...)
}

func listRules(env *Env) {
	rows := rulesInForce(env)
	switch env.Permissions.Summary().Mode {
	case tools.ModeBypass:
		fmt.Fprintln(env.IO.Out, "--dangerously-skip-permissions: every call is allowed except what a deny rule covers.")
	case tools.ModePlan:
		fmt.Fprintln(env.IO.Out, "Plan mode: only the read-only tools run until a plan is approved; deny rules still apply.")
	case tools.ModeAcceptEdits:
		fmt.Fprintln(env.IO.Out, "Accept-edits mode: Write and Edit inside the project run without asking.")
	}
	if len(rows) == 0 {
		fmt.Fprintln(env.IO.Out, "No permission rules: Write, Edit, Bash and the rest ask (in -p: are denied).")
		return
	}
	table := make([][2]string, 0, len(rows))
	for i, r := range rows {
		kind := "allow"
		if r.deny {
			kind = "deny"
		}
		table = append(table, [2]string{fmt.Sprintf("%d. %s %s", i+1, kind, r.rule), "(" + r.source + ")"})
	}
	writeTable(env.IO.Out, table, env.Width)
}

func addRule(env *Env, args string) error {
	project := false
	if rest, ok := strings.CutPrefix(args, "--project"); ok && (rest == "" || rest[0] == ' ') {
		project, args = true, strings.TrimSpace(rest)
	}
	if args == "" {
		return fmt.Errorf("%w: /permissions add [--project] <rule>, e.g. 'Bash(go test:*)'", ErrUsage)
	}
	r, err := tools.ParseRule(args)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if project {
		if err := env.Permissions.SaveProjectRule(r); err != nil {
			return fmt.Errorf("save rule %s: %w", r, err)
		}
		fmt.Fprintf(env.IO.Out, "Allowed %s, saved to the project's config file.\n", r)
		return nil
	}
	env.Permissions.AddSessionRule(r)
	fmt.Fprintf(env.IO.Out, "Allowed %s for this session.\n", r)
	return nil
}

func removeRule(env *Env, args string) error {
	rows := rulesInForce(env)
	n, err := strconv.Atoi(args)
	if err != nil || n < 1 || n > len(rows) {
		return fmt.Errorf("%w: /permissions rm <n>, n from 1 to %d as /permissions numbers them", ErrUsage, len(rows))
	}
	r := rows[n-1]
	if !r.session || !env.Permissions.RemoveSessionRule(r.rule) {
		return fmt.Errorf("%w: rule %d (%s) comes from %s: only this session's rules can be removed here", ErrUsage, n, r.rule, r.source)
	}
	fmt.Fprintf(env.IO.Out, "Removed %s.\n", r.rule)
	return nil
}
