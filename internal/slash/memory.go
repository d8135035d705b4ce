package slash

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/memory"
	"github.com/clawdcode/clawdcode/internal/termtext"
)

func memoryCommand() Command {
	return Command{
		Name:    "memory",
		Args:    "[add [--user] <text> | rm <n> | edit | accept <n> | reject <n> | suggest | export]",
		Summary: "list this project's memories and yours, each with its source; add, remove, edit, answer suggestions, export to AGENTS.md",
		Run: func(ctx context.Context, env *Env, args string) error {
			book := env.Memory.Book()
			if book == nil {
				return errors.New("memory: no memories available")
			}
			verb, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
			rest = strings.TrimSpace(rest)
			run, ok := memoryVerbs[verb]
			if !ok {
				return fmt.Errorf("%w: /memory %s: the verbs are add, rm, edit, accept, reject, suggest, export", ErrUsage, verb)
			}
			err := run(ctx, env, book, rest)
			if errors.Is(err, memory.ErrEmpty) || errors.Is(err, memory.ErrTooLong) || errors.Is(err, memory.ErrNoSuch) {
				return fmt.Errorf("%w: %w", ErrUsage, err)
			}
			return err
		},
	}
}

var memoryVerbs = map[string]func(ctx context.Context, env *Env, book *memory.Book, args string) error{
	"":        memoryList,
	"list":    memoryList,
	"add":     memoryAdd,
	"rm":      memoryRemove,
	"edit":    memoryEdit,
	"accept":  memoryAccept,
	"reject":  memoryReject,
	"export":  memoryExport,
	"suggest": memorySuggest,
}

func memoryList(ctx context.Context, env *Env, book *memory.Book, _ string) error {
	v, err := book.View()
	if err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	var b strings.Builder
	if len(v.Memories) == 0 {
		b.WriteString("No memories. /memory add <text> keeps one for this project (--user: for every project).\n")
	}
	heading := memory.Scope("")
	for i, m := range v.Memories {
		if m.Scope != heading {
			heading = m.Scope
			fmt.Fprintf(&b, "%s memories:\n", map[memory.Scope]string{memory.Project: "Project", memory.User: "User"}[m.Scope])
		}
		fmt.Fprintf(&b, "%d. %s\n", i+1, m.Text)
		if m.Stale != "" {
			fmt.Fprintf(&b, "   stale: %s (not given to the model)\n", m.Stale)
		}
		fmt.Fprintf(&b, "   (%s)\n", memory.Describe(m))
	}
	if len(v.Retired) > 0 {
		b.WriteString("Retired (not given to the model):\n")
		for _, m := range v.Retired {
			fmt.Fprintf(&b, "-  %s\n   (%s)\n", m.Text, m.Retired)
		}
	}
	if len(v.Suggestions) > 0 {
		b.WriteString("Suggestions (not given to the model until accepted: /memory accept <n>, /memory reject <n>):\n")
		for i, s := range v.Suggestions {
			fmt.Fprintf(&b, "%d. %s\n   (%s)\n", i+1, s.Text, memory.DescribeSuggestion(s))
		}
	}
	_, err = fmt.Fprint(env.IO.Out, b.String())
	return err
}

func memoryAdd(ctx context.Context, env *Env, book *memory.Book, args string) error {
	scope := memory.Project
	if rest, ok := strings.CutPrefix(args, "--user"); ok && (rest == "" || rest[0] == ' ') {
		scope, args = memory.User, strings.TrimSpace(rest)
	}
	m, retired, err := book.Add(ctx, scope, args)
	if err != nil {
		return fmt.Errorf("memory add: %w", err)
	}
	fmt.Fprintf(env.IO.Out, "Remembered (%s): %s\n", scope, termtext.FirstLine(m.Text, 100, "…"))
	for _, r := range retired {
		fmt.Fprintf(env.IO.Out, "Retired, replaced by it: %s\n", termtext.FirstLine(r.Text, 100, "…"))
	}
	if stale := memory.Check(book.Root(), m.Text); stale != "" {
		fmt.Fprintf(env.IO.ErrOut, "clawdcode: this memory is stale (%s): it is not given to the model until that changes\n", stale)
		return nil
	}
	return reaches(env)
}

// reaches says when the model sees a change of the memories: from the
// next message on, in the session under way too (agent.Memory).
func reaches(env *Env) error {
	line := "The model follows this from your next message on."
	if env.Sessions != nil && env.Sessions.ID() != "" {
		line = "The model follows this from your next message on, in this session too."
	}
	_, err := fmt.Fprintln(env.IO.Out, line)
	return err
}

func memoryNumber(verb, args string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(args))
	if err != nil {
		return 0, fmt.Errorf("%w: /memory %s <n>, n as /memory numbers them", ErrUsage, verb)
	}
	return n, nil
}

func memoryRemove(ctx context.Context, env *Env, book *memory.Book, args string) error {
	n, err := memoryNumber("rm", args)
	if err != nil {
		return err
	}
	m, err := book.Remove(ctx, n)
	if err != nil {
		return fmt.Errorf("memory rm: %w", err)
	}
	if _, err = fmt.Fprintf(env.IO.Out, "Forgotten: %s\n", termtext.FirstLine(m.Text, 100, "…")); err != nil {
		return err
	}
	return reaches(env)
}

func memoryEdit(ctx context.Context, env *Env, book *memory.Book, _ string) error {
	if env.Edit == nil {
		return fmt.Errorf("%w: /memory edit opens your editor, which needs a terminal; use /memory add and /memory rm", ErrUsage)
	}
	text, err := book.EditText()
	if err != nil {
		return fmt.Errorf("memory edit: %w", err)
	}
	edited, err := env.Edit(ctx, text)
	if err != nil {
		return fmt.Errorf("memory edit: %w", err)
	}
	ch, err := book.ApplyEdit(ctx, edited)
	if err != nil {
		return fmt.Errorf("memory edit: %w", err)
	}
	if _, err = fmt.Fprintf(env.IO.Out, "Memories: %d added, %d edited, %d removed.\n", ch.Added, ch.Edited, ch.Removed); err != nil || ch == (memory.Changes{}) {
		return err
	}
	return reaches(env)
}

func memoryAccept(ctx context.Context, env *Env, book *memory.Book, args string) error {
	n, err := memoryNumber("accept", args)
	if err != nil {
		return err
	}
	m, retired, err := book.Accept(ctx, n, "")
	if err != nil {
		return fmt.Errorf("memory accept: %w", err)
	}
	fmt.Fprintf(env.IO.Out, "Remembered (project): %s\n", termtext.FirstLine(m.Text, 100, "…"))
	for _, r := range retired {
		fmt.Fprintf(env.IO.Out, "Retired, replaced by it: %s\n", termtext.FirstLine(r.Text, 100, "…"))
	}
	return reaches(env)
}

func memoryReject(ctx context.Context, env *Env, book *memory.Book, args string) error {
	n, err := memoryNumber("reject", args)
	if err != nil {
		return err
	}
	s, err := book.Reject(ctx, n)
	if err != nil {
		return fmt.Errorf("memory reject: %w", err)
	}
	_, err = fmt.Fprintf(env.IO.Out, "Not remembered (it will not be suggested again): %s\n", termtext.FirstLine(s.Text, 100, "…"))
	return err
}

func memoryExport(ctx context.Context, env *Env, book *memory.Book, _ string) error {
	path, n, err := book.Export()
	if err != nil {
		return fmt.Errorf("memory export: %w", err)
	}
	_, err = fmt.Fprintf(env.IO.Out, "Wrote %d project %s to clawdcode's section of %s.\n", n, plural(n, "memory", "memories"), path)
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func memorySuggest(ctx context.Context, env *Env, book *memory.Book, _ string) error {
	kept, err := env.Memory.Suggest(ctx)
	if errors.Is(err, agent.ErrNoSession) {
		return fmt.Errorf("%w: /memory suggest needs a session: send a message first, or continue one (-c, -r)", ErrUsage)
	}
	if err != nil {
		return err
	}
	if len(kept) == 0 {
		_, err := fmt.Fprintln(env.IO.Out, "The model suggested nothing new to remember.")
		return err
	}
	v, err := book.View()
	if err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	_, err = fmt.Fprintf(env.IO.Out, "Suggested by the model (not given to it until accepted: /memory accept %d, /memory reject %d):\n%s\n",
		len(v.Suggestions), len(v.Suggestions), kept[0].Text)
	return err
}
