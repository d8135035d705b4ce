package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeEditor holds buffers by absolute path, as an editor does: a file
// open in it reads as its buffer, unsaved changes included; a write
// changes the buffer only (the disk is the editor's business).
type fakeEditor struct {
	mu      sync.Mutex
	buffers map[string]string
	reads   []string
	writes  []string
}

func (f *fakeEditor) ReadTextFile(_ context.Context, path string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, path)
	if s, ok := f.buffers[path]; ok {
		return s, nil
	}
	data, err := os.ReadFile(path)
	return string(data), err
}

func (f *fakeEditor) WriteTextFile(_ context.Context, path, content string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if strings.Contains(path, "readonly") {
		return errors.New("buffer is read-only")
	}
	f.writes = append(f.writes, path)
	f.buffers[path] = content
	return nil
}

func (f *fakeEditor) buffer(path string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buffers[path]
}

func (f *fakeEditor) edit(path, content string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buffers[path] = content
}

func editorEnv(t *testing.T) (*Env, *fakeEditor, string) {
	t.Helper()
	root := t.TempDir()
	env := NewEnv(root)
	ed := &fakeEditor{buffers: map[string]string{}}
	env.UseTextFiles(ed, ed)
	return env, ed, env.Root
}

// Read shows the editor's buffer, unsaved changes included; Edit changes
// that buffer through the editor and leaves the disk to it.
func TestTextFilesReadAndEditTheBuffer(t *testing.T) {
	t.Parallel()
	env, ed, root := editorEnv(t)
	path := filepath.Join(root, "main.go")
	writeFile(t, path, "package main\n\nfunc main() {}\n")
	ed.edit(path, "package main\n\nfunc main() { println(\"unsaved\") }\n")

	r := call(t, env, NameRead, obj{"file_path": "main.go"})
	wantOK(t, r)
	if !strings.Contains(r.Output, `println("unsaved")`) {
		t.Fatalf("Read showed %q, not the editor's buffer", r.Output)
	}
	wantOK(t, call(t, env, NameEdit, obj{"file_path": "main.go", "old_string": `println("unsaved")`, "new_string": `println("saved")`}))
	if got := ed.buffer(path); got != "package main\n\nfunc main() { println(\"saved\") }\n" {
		t.Fatalf("buffer after Edit = %q", got)
	}
	if got := readFile(t, path); got != "package main\n\nfunc main() {}\n" {
		t.Fatalf("Edit wrote the disk behind the editor: %q", got)
	}
	// Edit after Edit needs no Read: what was written is what was seen.
	wantOK(t, call(t, env, NameEdit, obj{"file_path": "main.go", "old_string": `"saved"`, "new_string": `"again"`}))
}

// A change the user makes in the editor after the Read is a change: Edit
// and Write refuse until the file is read again, even though the disk
// never changed; the Precheck (before the permission question) judges by
// the buffer too.
func TestTextFilesBufferChangeIsAChange(t *testing.T) {
	t.Parallel()
	env, ed, root := editorEnv(t)
	path := filepath.Join(root, "notes.txt")
	writeFile(t, path, "alpha\n")
	wantOK(t, call(t, env, NameRead, obj{"file_path": "notes.txt"}))
	ed.edit(path, "alpha\nbeta (typed by the user)\n")

	in, _ := json.Marshal(obj{"file_path": "notes.txt", "old_string": "alpha", "new_string": "gamma"})
	if res, ok := Precheck(t.Context(), newEditTool(env), in); ok || !strings.Contains(res.Error, "modified since it was last read") {
		t.Fatalf("Precheck of an Edit over a changed buffer: ok=%v %q", ok, res.Error)
	}
	wantError(t, call(t, env, NameWrite, obj{"file_path": "notes.txt", "content": "x"}), "modified since it was last read")
	wantOK(t, call(t, env, NameRead, obj{"file_path": "notes.txt"}))
	wantOK(t, call(t, env, NameEdit, obj{"file_path": "notes.txt", "old_string": "alpha", "new_string": "gamma"}))
	if got := ed.buffer(path); got != "gamma\nbeta (typed by the user)\n" {
		t.Fatalf("buffer = %q", got)
	}
}

// Write creates a file through the editor; an editor that refuses a write
// is a failed call the model is told about, naming the editor.
func TestTextFilesWriteThroughTheEditor(t *testing.T) {
	t.Parallel()
	env, ed, root := editorEnv(t)
	r := call(t, env, NameWrite, obj{"file_path": "src/new.txt", "content": "one\n"})
	wantOK(t, r)
	if got := ed.buffer(filepath.Join(root, "src/new.txt")); got != "one\n" {
		t.Fatalf("the editor holds %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "src/new.txt")); err == nil {
		t.Fatal("Write wrote the disk itself")
	}
	wantError(t, call(t, env, NameWrite, obj{"file_path": "readonly.txt", "content": "x"}), "the editor could not write it", "buffer is read-only")
}

// Images, binary files and files too large for a buffer are the disk's:
// the editor is not asked for them.
func TestTextFilesLeaveBinaryToTheDisk(t *testing.T) {
	t.Parallel()
	env, ed, root := editorEnv(t)
	writeFile(t, filepath.Join(root, "blob.bin"), "a\x00b")
	wantError(t, call(t, env, NameRead, obj{"file_path": "blob.bin"}), "binary file")
	if len(ed.reads) != 0 {
		t.Fatalf("the editor was asked for %q", ed.reads)
	}
}
