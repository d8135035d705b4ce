package repl

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/clawdcode/clawdcode/internal/tools"
)

// askPreviewLines of a preview are shown in the permission dialog; 'v'
// shows the rest.
const askPreviewLines = 20

// askKey is the permission dialog of a terminal REPL: what the call would
// do (the whole command, or the diff a Write or Edit would make against
// the file as it is now), a warning for a path outside the project, and
// one-key answers with the default marked.
// Choosing "No, tell the model to do something else" by its key or Enter
// opens a one-line input (readNote) whose text goes to the model with the
// denial; Esc is a plain no.
func (a *Asker) askKey(ctx context.Context, c *console, tool tools.Tool, input json.RawMessage) (tools.Decision, string, error) {
	c.kb.beginDialog() // before the question shows: see selectOption
	defer c.kb.endDialog()
	w := a.io.ErrOut
	cs := a.cs
	name := tool.Name()
	width := 80
	if c.width != nil {
		width = c.width()
	}
	headline := tool.Describe(input)
	fmt.Fprintf(w, "%s %s\n", cs.warn("?"), cs.bold(safe(headline)))
	var preview []string
	if name == tools.NameBash {
		writePreview(w, cs, name, headline, input) // the whole command, wrapped, made safe
	} else {
		preview = a.preview(name, input, width-5)
		showPreview(w, cs, preview, askPreviewLines, width)
	}
	if p := filePath(input, a.Root); p != "" && a.Root != "" && (name == tools.NameWrite || name == tools.NameEdit) {
		if rel, err := filepath.Rel(a.Root, p); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			fmt.Fprintln(w, cs.warn("  ⚠ "+safe(p)+" is outside the project ("+tildePath(a.Root)+")"))
		}
	}
	scope := name + " for the rest of this session"
	var rules []string
	if a.Propose != nil {
		if rules = a.Propose(tool, input); len(rules) > 0 {
			scope = strings.Join(rules, ", ") + " for this session"
		}
	}
	options := []choice{{key: '1', alias: 'y', label: "Yes"}}
	decisions := []tools.Decision{tools.AllowOnce}
	if a.Propose == nil || len(rules) > 0 {
		// With nothing a rule can name (a command that is not all
		// literal words), "always" would add nothing: not offered.
		options = append(options, choice{key: '2', alias: 'a', label: "Yes, and allow " + scope})
		decisions = append(decisions, tools.AllowAlways)
	}
	if len(rules) > 0 {
		// The same rules, kept: added to the project's config file.
		options = append(options, choice{key: rune('1' + len(options)), alias: 'p',
			label: "Yes, and always allow " + strings.Join(rules, ", ") + " in this project (.clawdcode/config.toml)"})
		decisions = append(decisions, tools.AllowAlwaysProject)
	}
	options = append(options, choice{key: rune('1' + len(options)), alias: 'n', label: "No, tell the model to do something else", cancel: true})
	decisions = append(decisions, tools.Deny)
	if len(preview) > askPreviewLines {
		fmt.Fprintln(w, cs.dim("  (v: view all of it)"))
	}
	i, escaped, err := selectOptionKey(ctx, c, w, cs, options, func(k key) bool {
		if k.r == 'v' || k.r == 'V' {
			showPreview(w, cs, preview, 0, width)
			return true
		}
		return false
	})
	if err != nil {
		return tools.Deny, "", answerErr(ctx, err)
	}
	if decisions[i] == tools.Deny && !escaped {
		note, err := readNote(ctx, c, w, cs, "What should the model do instead? (Enter: send · Esc: just no)")
		return tools.Deny, note, answerErr(ctx, err)
	}
	return decisions[i], "", nil
}

// answerErr is what ends a dialog without an answer means: the context's
// end, a plain no at the end of input (nil), or the error itself.
func answerErr(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case err == io.EOF:
		return nil
	}
	return err
}

// preview is what a call would do, as lines: the diff a Write or Edit
// would make to the file as it is now, its lines wrapped at width.
func (a *Asker) preview(name string, input json.RawMessage, width int) []string {
	var args struct {
		Content    string `json:"content"`
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	}
	if json.Unmarshal(input, &args) != nil {
		return nil
	}
	switch name {
	case tools.NameWrite, tools.NameEdit:
		p := filePath(input, a.Root)
		if p == "" {
			return nil
		}
		before := snapshot(p)
		if !before.ok {
			return []string{a.cs.dim("(the file is too big to show a diff)")}
		}
		after := args.Content
		if name == tools.NameEdit {
			if !strings.Contains(before.content, args.OldString) || args.OldString == "" {
				return nil // the tool will say what is wrong
			}
			if args.ReplaceAll {
				after = strings.ReplaceAll(before.content, args.OldString, args.NewString)
			} else {
				after = strings.Replace(before.content, args.OldString, args.NewString, 1)
			}
		}
		v := newDiffView(before.content, after, !before.exists, a.cs)
		return append([]string{v.summary()}, v.render(width)...)
	}
	return nil
}

func showPreview(w io.Writer, cs colorScheme, lines []string, limit, width int) {
	shown := lines
	if limit > 0 && len(lines) > limit {
		shown = lines[:limit]
	}
	for _, l := range shown {
		fmt.Fprintln(w, "  "+cs.dim("│ ")+clipStyled(l, width-5))
	}
	if rest := len(lines) - len(shown); rest > 0 {
		fmt.Fprintln(w, "  "+cs.dim(fmt.Sprintf("│ … +%s", plural(rest, "line"))))
	}
}
