package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/tools"
)

var _ agent.PlanApprover = (*Asker)(nil)

// planAnswers are the answers to a plan the model handed over
// (ExitPlanMode), and the mode each carries it out in (ModePlan: keep
// planning).
var planAnswers = []struct {
	choice
	mode tools.Mode
}{
	{choice{key: '1', alias: 'y', label: "Yes, and ask before each change (default mode)"}, tools.ModeDefault},
	{choice{key: '2', alias: 'a', label: "Yes, and accept edits (Write and Edit in the project without asking)"}, tools.ModeAcceptEdits},
	{choice{key: '3', alias: 'n', label: "No, keep planning: tell the model what to change", cancel: true}, tools.ModePlan},
}

// ApprovePlan shows the plan the model handed over, framed, and asks
// whether to carry it out, and in which mode (agent.PlanApprover): one
// key on a terminal in raw mode, where "keep planning" by its key opens a
// line for what to change (Esc: keep planning, and say it later); a
// line elsewhere. Ctrl-C ends the turn; the end of input keeps planning.
func (a *Asker) ApprovePlan(ctx context.Context, plan string) (agent.PlanAnswer, error) {
	a.pauseTurn()
	defer a.resumeTurn()
	keep := agent.PlanAnswer{Mode: tools.ModePlan}
	c := a.linked()
	if c == nil || c.kb == nil {
		return a.approvePlanLines(ctx, plan)
	}
	c.kb.beginDialog() // before the question shows: see selectOption
	defer c.kb.endDialog()
	w := a.io.ErrOut
	width := 80
	if c.width != nil {
		width = c.width()
	}
	writePlan(w, a.cs, plan, width)
	fmt.Fprintf(w, "%s %s\n", a.cs.warn("?"), a.cs.bold("Approve this plan and carry it out?"))
	options := make([]choice, len(planAnswers))
	for i, p := range planAnswers {
		options[i] = p.choice
	}
	i, escaped, err := selectOptionKey(ctx, c, w, a.cs, options, nil)
	if err != nil {
		return keep, answerErr(ctx, err)
	}
	next := planAnswers[i].mode
	if next != tools.ModePlan {
		return agent.PlanAnswer{Mode: next}, nil
	}
	if escaped {
		fmt.Fprintln(w, a.cs.dim("  still in plan mode: say what to change in the plan"))
		return keep, nil
	}
	note, err := readNote(ctx, c, w, a.cs, "What should change in the plan? (Enter: send, and the model revises it · Esc: say it later)")
	if err != nil || note == "" {
		fmt.Fprintln(w, a.cs.dim("  still in plan mode: say what to change in the plan"))
	}
	keep.Note = note
	return keep, answerErr(ctx, err)
}

// approvePlanLines asks on a terminal without raw keys: the plan, then
// an answer per line.
func (a *Asker) approvePlanLines(ctx context.Context, plan string) (agent.PlanAnswer, error) {
	w := a.io.ErrOut
	keep := agent.PlanAnswer{Mode: tools.ModePlan}
	writePlan(w, a.cs, plan, 100)
	for range maxAttempts {
		fmt.Fprint(w, "Approve this plan? [y]es / [a]ccept edits too / [n]o, keep planning: ")
		line, err := readLine(ctx, a.io)
		if err != nil {
			fmt.Fprintln(w)
			if errors.Is(err, io.EOF) {
				return keep, nil
			}
			return keep, err
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return agent.PlanAnswer{Mode: tools.ModeDefault}, nil
		case "a", "accept":
			return agent.PlanAnswer{Mode: tools.ModeAcceptEdits}, nil
		case "n", "no", "":
			return keep, nil
		}
	}
	return keep, nil
}

// writePlan shows a plan in a frame: a rule with its title above, a
// gutter down its left, a rule below; its Markdown rendered for the
// terminal (and made safe first: the plan is the model's text).
func writePlan(w io.Writer, cs colorScheme, plan string, width int) {
	inner := max(width-4, 20)
	var body []string
	if cs.on {
		var buf bytes.Buffer
		md := newMarkdownWriter(&buf, func() int { return inner })
		_ = md.WriteString(safe(plan))
		_ = md.Flush()
		body = strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	} else {
		for _, l := range strings.Split(strings.TrimRight(safe(plan), "\n"), "\n") {
			body = append(body, wrapWidth(l, inner)...)
		}
	}
	rule := strings.Repeat("─", max(width-2-len(" Plan "), 4))
	fmt.Fprintln(w, cs.wrap(styleCode, styleFgReset, "╭─")+cs.bold(" Plan ")+cs.wrap(styleCode, styleFgReset, rule))
	for _, l := range body {
		fmt.Fprintln(w, cs.wrap(styleCode, styleFgReset, "│ ")+l)
	}
	fmt.Fprintln(w, cs.wrap(styleCode, styleFgReset, "╰"+strings.Repeat("─", max(width-2, 4))))
}
