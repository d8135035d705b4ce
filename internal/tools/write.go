package tools

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

func newWriteTool(env *Env) *tool {
	return typed(&tool{
		name: NameWrite,
		description: "Write a file to the local filesystem, creating it (and its parent directories) or " +
			"replacing its whole content. An existing file must have been read with Read first (and not changed since). " +
			"Prefer Edit for changing part of an existing file. " +
			"The content is written exactly as given: no line numbers.",
		permission: true,
		validate: checked(func(ctx context.Context, p writeParams) (Result, bool) {
			_, res, ok := env.prepareWrite(ctx, p)
			return res, ok
		}),
	}, env.runWrite, func(p writeParams) string { return env.describePath(p.FilePath) })
}

// writeParams are Write's parameters (see params.go).
type writeParams struct {
	FilePath string `json:"file_path" param:"text" jsonschema:"Path of the file to write, absolute or relative to the project root."`
	Content  string `json:"content" jsonschema:"The complete new content of the file."`
}

// writePlan is a Write that can be made.
type writePlan struct {
	path, shown string
	content     string
	mode        fs.FileMode
	existed     bool
}

// prepareWrite checks a Write's arguments and target without changing
// anything: the check before the permission question, made again (under
// writeMu) by the run itself.
func (e *Env) prepareWrite(ctx context.Context, wp writeParams) (writePlan, Result, bool) {
	p, content := wp.FilePath, wp.Content
	w := writePlan{path: resolveTarget(e.Root, p), shown: e.display(e.resolve(p)), content: content}
	if res, ok := e.checkProtected(w.path, w.shown); !ok {
		return writePlan{}, res, false
	}
	var res Result
	var ok bool
	w.mode, w.existed, res, ok = writableTarget(w.path, w.shown)
	if !ok {
		return writePlan{}, res, false
	}
	if w.existed {
		if res, ok := e.checkSeen(ctx, w.path, w.shown); !ok {
			return writePlan{}, res, false
		}
	}
	return w, Result{}, true
}

// checkSeen refuses to replace an existing file the session has not seen
// (Read, Write or Edit), or that changed on disk (or in the editor's
// buffer) since: the model would overwrite content it never looked at.
func (e *Env) checkSeen(ctx context.Context, path, shown string) (Result, bool) {
	info, err := os.Stat(path)
	if err != nil {
		return statFailure(err, shown), false
	}
	var content []byte
	if info.Size() <= hashLimit {
		if content, err = e.readText(ctx, path, info.Size()); err != nil {
			return readFailure(err, shown), false
		}
	}
	switch e.freshness(path, info, content) {
	case fileUnread:
		return fail("%s already exists and has not been read in this session; Read it first, then write it (or use Edit to change part of it)", shown), false
	case fileChanged:
		return fail("%s was modified since it was last read (by the user or another program); Read it again before writing it", shown), false
	}
	return Result{}, true
}

// checkProtected refuses a target under a protected directory.
func (e *Env) checkProtected(target, shown string) (Result, bool) {
	if dir, ok := e.protectedDir(target); ok {
		return fail("%s is inside clawdcode's own storage (%s, CLAWDCODE_HOME); tools never write there", shown, dir), false
	}
	return Result{}, true
}

func (e *Env) runWrite(ctx context.Context, a writeParams) Result {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	w, res, ok := e.prepareWrite(ctx, a)
	if !ok {
		return res
	}
	path, shown, content, mode, existed := w.path, w.shown, w.content, w.mode, w.existed
	if !existed {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fail("create directory for %s: %v", shown, err)
		}
	}
	if res, ok := e.replaceFile(ctx, path, shown, []byte(content), mode); !ok {
		return res
	}
	verb := "Created"
	if existed {
		verb = "Overwrote"
	}
	return Result{Output: fmt.Sprintf("%s %s (%s).", verb, shown, lineCount(content))}
}

// writableTarget checks that path can be replaced and returns the mode the
// new content gets: an existing file keeps its own.
func writableTarget(path, shown string) (mode fs.FileMode, existed bool, res Result, ok bool) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return newFileMode, false, Result{}, true
	case err != nil:
		return 0, false, statFailure(err, shown), false
	case info.IsDir():
		return 0, false, fail("%s is a directory, not a file", shown), false
	case !info.Mode().IsRegular():
		return 0, false, fail("%s is not a regular file", shown), false
	}
	// A rename would replace a read-only file regardless of its mode; honour
	// the mode the user set instead.
	if unix.Access(path, unix.W_OK) != nil {
		return 0, false, fail("%s is read-only; not changing it", shown), false
	}
	return info.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky), true, Result{}, true
}

// replaceFile writes data atomically (or hands it to the editor, see
// UseTextFiles) and records it as seen, so an Edit may follow a Write
// without a Read.
func (e *Env) replaceFile(ctx context.Context, path, shown string, data []byte, mode fs.FileMode) (Result, bool) {
	if e.beforeChange != nil {
		e.beforeChange(path)
	}
	edited, err := e.writeText(ctx, path, data)
	if err == nil && !edited {
		err = WriteFileAtomic(path, data, mode)
	}
	if err != nil {
		return fail("write %s: %v", shown, err), false
	}
	if e.afterChange != nil {
		e.afterChange(path, data)
	}
	info, err := os.Stat(path)
	switch {
	case err == nil:
		e.remember(path, info, data)
	case edited:
		// The editor holds a new file in a buffer it has not saved: what
		// it holds is what was written all the same.
		e.rememberState(path, fileState{size: int64(len(data)), hashed: true, sum: sha256.Sum256(data)})
	default:
		return fail("write %s: %v", shown, err), false
	}
	return Result{}, true
}

// readFailure says why a file's content could not be read, from the
// disk (statFailure's words) or the editor.
func readFailure(err error, shown string) Result {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return statFailure(err, shown)
	}
	return fail("read %s: %v", shown, err)
}
