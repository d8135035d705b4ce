package tools

import (
	"context"
	"fmt"
	"os"
)

// TextReader reads a text file's content where the user edits it: an
// editor's buffer, its unsaved changes included (the Agent Client
// Protocol's fs/read_text_file). path is absolute. An error is the
// reader's (the editor could not read it), said to the model as a failed
// call.
type TextReader interface {
	ReadTextFile(ctx context.Context, path string) (string, error)
}

// TextWriter writes a text file's whole content where the user edits it
// (fs/write_text_file), creating the file when it does not exist. path
// is absolute.
type TextWriter interface {
	WriteTextFile(ctx context.Context, path, content string) error
}

// UseTextFiles makes Read, Edit and Write take a text file's content from
// r and give it to w (either may be nil: that side stays the disk's). The
// disk still decides everything else — whether a file exists, is a
// regular file, an image or binary, may be written, is too large — and a
// file over hashLimit is read from the disk whatever r is: an editor's
// answer carries a whole file, and a buffer that large is not one being
// edited. Edit and Write judge whether a file changed since it was read
// by the content the reader gives, so an unsaved change in the editor is
// a change, and an unsaved buffer read through r is the content seen.
func (e *Env) UseTextFiles(r TextReader, w TextWriter) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.textReader, e.textWriter = r, w
}

// editorReader is the reader of a file of size bytes: UseTextFiles'
// reader, or nil for the disk.
func (e *Env) editorReader(size int64) TextReader {
	e.mu.Lock()
	defer e.mu.Unlock()
	if size > hashLimit {
		return nil
	}
	return e.textReader
}

// readText is the content of the regular file at path, of size bytes, as
// the tools see it: the editor's when it reads text files, else the disk's.
func (e *Env) readText(ctx context.Context, path string, size int64) ([]byte, error) {
	if r := e.editorReader(size); r != nil {
		s, err := r.ReadTextFile(ctx, path)
		if err != nil {
			return nil, fmt.Errorf("the editor could not read it: %w", err)
		}
		return []byte(s), nil
	}
	return os.ReadFile(path)
}

// writeText gives data to the editor when it writes text files, and
// reports false when it does not: the caller writes the disk.
func (e *Env) writeText(ctx context.Context, path string, data []byte) (bool, error) {
	e.mu.Lock()
	w := e.textWriter
	e.mu.Unlock()
	if w == nil {
		return false, nil
	}
	if err := w.WriteTextFile(ctx, path, string(data)); err != nil {
		return true, fmt.Errorf("the editor could not write it: %w", err)
	}
	return true, nil
}
