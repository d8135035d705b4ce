package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

const (
	// maxEditBytes bounds the files Edit loads whole.
	maxEditBytes = 32 << 20
	// snippetContext is how many lines around a change Edit shows.
	snippetContext = 3
	// snippetMaxLines bounds that snippet when new_string itself is long.
	snippetMaxLines = 30
)

func newEditTool(env *Env) *tool {
	return typed(&tool{
		name: NameEdit,
		description: "Replace text in a file. old_string must match the file exactly (whitespace and " +
			"indentation included, without Read's line-number prefix) and be unique in the file; include " +
			"enough surrounding lines to make it unique, or set replace_all to replace every occurrence. " +
			"The file must have been read with Read (or written with Write) first, and not changed since. " +
			"An empty old_string creates a new file with new_string as its content.",
		permission: true,
		validate: checked(func(ctx context.Context, p editParams) (Result, bool) {
			_, res, ok := env.prepareEdit(ctx, p)
			return res, ok
		}),
	}, env.runEdit, func(p editParams) string { return env.describePath(p.FilePath) })
}

// editParams are Edit's parameters (see params.go).
type editParams struct {
	FilePath   string `json:"file_path" param:"text" jsonschema:"Path of the file to edit, absolute or relative to the project root."`
	OldString  string `json:"old_string" jsonschema:"The exact text to replace."`
	NewString  string `json:"new_string" jsonschema:"The text to replace it with (must differ from old_string)."`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace every occurrence of old_string instead of requiring exactly one (default false)."`
}

// editPlan is an Edit that can be made: the file's new content, or a file
// to create.
type editPlan struct {
	path, shown string
	create      bool // the file does not exist: old_string was empty
	updated     string
	mode        fs.FileMode
	count       int // occurrences replaced (0 for a whole-content write)
	first       int // offset of the first change in updated
	newLen      int // length of the replacement, for the snippet
}

// prepareEdit checks an Edit — its arguments, that the file was read and
// has not changed since, that old_string is found — and computes the new
// content without writing: the check before the permission question, made
// again (under writeMu) by the run itself.
func (e *Env) prepareEdit(ctx context.Context, ep editParams) (editPlan, Result, bool) {
	p, oldS, newS, all := ep.FilePath, ep.OldString, ep.NewString, ep.ReplaceAll
	if oldS == newS {
		return editPlan{}, fail("old_string and new_string are identical; there is nothing to change"), false
	}
	path := resolveTarget(e.Root, p)
	shown := e.display(e.resolve(p))
	if res, ok := e.checkProtected(path, shown); !ok {
		return editPlan{}, res, false
	}

	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if oldS == "" {
			return editPlan{path: path, shown: shown, create: true, updated: newS, mode: newFileMode}, Result{}, true
		}
		return editPlan{}, fail("file does not exist: %s (to create a file, use Write)", shown), false
	}
	mode, _, res, ok := writableTarget(path, shown)
	if !ok {
		return editPlan{}, res, false
	}
	if info.Size() > maxEditBytes {
		return editPlan{}, fail("%s is too large to edit (%d bytes; the limit is %d)", shown, info.Size(), maxEditBytes), false
	}
	data, err := e.readText(ctx, path, info.Size())
	if err != nil {
		return editPlan{}, readFailure(err, shown), false
	}
	switch e.freshness(path, info, data) {
	case fileUnread:
		return editPlan{}, fail("%s has not been read in this session; Read it first, then edit it", shown), false
	case fileChanged:
		return editPlan{}, fail("%s was modified since it was last read (by the user or another program); Read it again before editing", shown), false
	}

	plan := editPlan{path: path, shown: shown, mode: mode}
	content := string(data)
	if oldS == "" {
		if content != "" {
			return editPlan{}, fail("old_string is empty but %s is not; quote the text to replace, or use Write to replace the whole file", shown), false
		}
		plan.updated = newS
		return plan, Result{}, true
	}

	count := strings.Count(content, oldS)
	if count == 0 && strings.Contains(content, "\r\n") && strings.Contains(oldS, "\n") && !strings.Contains(oldS, "\r\n") {
		// Read shows CRLF files without the \r; the model quotes them with \n.
		crOld := strings.ReplaceAll(oldS, "\n", "\r\n")
		if n := strings.Count(content, crOld); n > 0 {
			oldS, newS, count = crOld, strings.ReplaceAll(newS, "\n", "\r\n"), n
		}
	}
	switch {
	case count == 0:
		msg := fmt.Sprintf("old_string not found in %s. It must match the file exactly, including whitespace and indentation; Read the file to see its current content", shown)
		if t := strings.TrimSpace(oldS); t != oldS && t != "" && strings.Contains(content, t) {
			msg += " (the text does occur with different leading or trailing whitespace)"
		}
		return editPlan{}, Result{Error: msg}, false
	case count > 1 && !all:
		return editPlan{}, fail("old_string matches %d places in %s; include more surrounding lines to make it unique, or set replace_all to true to replace every occurrence", count, shown), false
	}

	plan.first = strings.Index(content, oldS)
	plan.newLen = len(newS)
	if all {
		plan.updated = strings.ReplaceAll(content, oldS, newS)
	} else {
		plan.updated = strings.Replace(content, oldS, newS, 1)
		count = 1
	}
	plan.count = count
	return plan, Result{}, true
}

func (e *Env) runEdit(ctx context.Context, a editParams) Result {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	plan, res, ok := e.prepareEdit(ctx, a)
	switch {
	case !ok:
		return res
	case plan.create:
		return e.createByEdit(ctx, plan.path, plan.shown, plan.updated)
	}
	if res, ok := e.replaceFile(ctx, plan.path, plan.shown, []byte(plan.updated), plan.mode); !ok {
		return res
	}
	if plan.count == 0 {
		return Result{Output: fmt.Sprintf("Wrote %s (%s).", plan.shown, lineCount(plan.updated))}
	}
	noun := "occurrence"
	if plan.count != 1 {
		noun = "occurrences"
	}
	return Result{Output: fmt.Sprintf("Edited %s: replaced %d %s. The result around the first change:\n%s",
		plan.shown, plan.count, noun, snippet(plan.updated, plan.first, plan.newLen))}
}

func (e *Env) createByEdit(ctx context.Context, path, shown, content string) Result {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fail("create directory for %s: %v", shown, err)
	}
	if res, ok := e.replaceFile(ctx, path, shown, []byte(content), newFileMode); !ok {
		return res
	}
	return Result{Output: fmt.Sprintf("Created %s (%s).", shown, lineCount(content))}
}

// snippet numbers the lines of s covering [at, at+n) plus a little context,
// the way Read shows them, so the model can check its change without
// reading the file again.
func snippet(s string, at, n int) string {
	startLine := strings.Count(s[:at], "\n") + 1
	endLine := startLine + strings.Count(s[at:at+n], "\n")
	from := max(1, startLine-snippetContext)
	to := endLine + snippetContext
	clipped := false
	if to-from+1 > snippetMaxLines {
		to, clipped = from+snippetMaxLines-1, true
	}
	var b strings.Builder
	line := 1
	for rest := s; rest != "" && line <= to; line++ {
		text, next, _ := strings.Cut(rest, "\n")
		rest = next
		if line >= from {
			text = strings.TrimSuffix(text, "\r")
			if len(text) > readMaxLineBytes {
				text = string(trimPartialRuneEnd([]byte(text[:readMaxLineBytes]))) + " …"
			}
			b.Write(append(appendNumbered(nil, line, []byte(text)), '\n'))
		}
	}
	if clipped {
		b.WriteString("   ...\n")
	}
	return b.String()
}
