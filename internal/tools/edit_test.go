package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	env := NewEnv(root)

	r := call(t, env, NameWrite, obj{"file_path": "a/b/new.txt", "content": "one\ntwo\n"})
	wantOK(t, r)
	if r.Output != "Created a/b/new.txt (2 lines)." {
		t.Errorf("output %q", r.Output)
	}
	p := filepath.Join(root, "a/b/new.txt")
	if got := readFile(t, p); got != "one\ntwo\n" {
		t.Errorf("content %q", got)
	}
	info, _ := os.Stat(p)
	if info.Mode().Perm() != newFileMode {
		t.Errorf("new file mode %v", info.Mode().Perm())
	}

	// Overwrite keeps the existing mode and leaves no temp files behind.
	os.Chmod(p, 0o755)
	r = call(t, env, NameWrite, obj{"file_path": p, "content": "x"})
	wantOK(t, r)
	if r.Output != "Overwrote a/b/new.txt (1 line)." {
		t.Errorf("output %q", r.Output)
	}
	if info, _ := os.Stat(p); info.Mode().Perm() != 0o755 {
		t.Errorf("mode not preserved: %v", info.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the file", len(entries))
	}

	// Empty content is a valid file.
	wantOK(t, call(t, env, NameWrite, obj{"file_path": "empty", "content": ""}))
	if got := readFile(t, filepath.Join(root, "empty")); got != "" {
		t.Errorf("empty file has %q", got)
	}

	wantError(t, call(t, env, NameWrite, obj{"file_path": "a", "content": "x"}), "a is a directory")
}

func TestWriteThroughSymlinkReplacesTarget(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "real.txt"), "old")
	if err := os.Symlink("real.txt", filepath.Join(root, "link.txt")); err != nil {
		t.Skip(err)
	}
	env := NewEnv(root)
	wantOK(t, call(t, env, NameRead, obj{"file_path": "link.txt"}))
	wantOK(t, call(t, env, NameWrite, obj{"file_path": "link.txt", "content": "new"}))
	if got := readFile(t, filepath.Join(root, "real.txt")); got != "new" {
		t.Errorf("target has %q", got)
	}
	if fi, _ := os.Lstat(filepath.Join(root, "link.txt")); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
}

const goSource = `package main

func a() int { return 1 }

func b() int { return 1 }
`

func TestEdit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		input   obj
		want    string // file content after
		output  []string
		wantErr []string
	}{
		{
			name:    "unique replacement",
			content: goSource,
			input:   obj{"old_string": "func a() int { return 1 }", "new_string": "func a() int { return 2 }"},
			want:    strings.Replace(goSource, "a() int { return 1 }", "a() int { return 2 }", 1),
			output:  []string{"Edited f.go: replaced 1 occurrence.", "     3\tfunc a() int { return 2 }\n", "     1\tpackage main\n", "     5\tfunc b()"},
		},
		{
			name:    "not unique",
			content: goSource,
			input:   obj{"old_string": "return 1", "new_string": "return 3"},
			wantErr: []string{"old_string matches 2 places in f.go", "replace_all"},
		},
		{
			name:    "replace all",
			content: goSource,
			input:   obj{"old_string": "return 1", "new_string": "return 3", "replace_all": true},
			want:    strings.ReplaceAll(goSource, "return 1", "return 3"),
			output:  []string{"replaced 2 occurrences"},
		},
		{
			name:    "not found",
			content: goSource,
			input:   obj{"old_string": "func c()", "new_string": "func d()"},
			wantErr: []string{"old_string not found in f.go", "Read the file"},
		},
		{
			name:    "not found, whitespace hint",
			content: goSource,
			input:   obj{"old_string": "  func a() int", "new_string": "func z() int"},
			wantErr: []string{"not found", "different leading or trailing whitespace"},
		},
		{
			name:    "deletion",
			content: "keep\ndrop\nkeep\n",
			input:   obj{"old_string": "drop\n", "new_string": ""},
			want:    "keep\nkeep\n",
		},
		{
			name:    "crlf file quoted with lf",
			content: "one\r\ntwo\r\nthree\r\n",
			input:   obj{"old_string": "one\ntwo\n", "new_string": "1\n2\n"},
			want:    "1\r\n2\r\nthree\r\n",
		},
		{
			name:    "empty old_string on non-empty file",
			content: goSource,
			input:   obj{"old_string": "", "new_string": "x"},
			wantErr: []string{"old_string is empty"},
		},
		{
			name:    "empty old_string fills an empty file",
			content: "",
			input:   obj{"old_string": "", "new_string": "hello\n"},
			want:    "hello\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			p := filepath.Join(root, "f.go")
			writeFile(t, p, tt.content)
			env := NewEnv(root)
			wantOK(t, call(t, env, NameRead, obj{"file_path": "f.go"}))
			tt.input["file_path"] = "f.go"
			r := call(t, env, NameEdit, tt.input)
			if tt.wantErr != nil {
				wantError(t, r, tt.wantErr...)
				if got := readFile(t, p); got != tt.content {
					t.Fatalf("failed edit changed the file: %q", got)
				}
				return
			}
			wantOK(t, r)
			if got := readFile(t, p); got != tt.want {
				t.Fatalf("file is %q, want %q", got, tt.want)
			}
			for _, s := range tt.output {
				if !strings.Contains(r.Output, s) {
					t.Fatalf("output %q lacks %q", r.Output, s)
				}
			}
		})
	}
}

func TestEditReadState(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p := filepath.Join(root, "f.txt")
	writeFile(t, p, "alpha\nbeta\n")
	env := NewEnv(root)
	edit := obj{"file_path": "f.txt", "old_string": "alpha", "new_string": "ALPHA"}

	// Never read in this Env.
	wantError(t, call(t, env, NameEdit, edit), "has not been read", "Read it first")

	// Read, then changed on disk behind the tools' back (same size, and
	// within the same mtime tick as far as the check is concerned).
	wantOK(t, call(t, env, NameRead, obj{"file_path": "f.txt"}))
	info, _ := os.Stat(p)
	writeFile(t, p, "gamma\nbeta\n")
	os.Chtimes(p, info.ModTime(), info.ModTime())
	wantError(t, call(t, env, NameEdit, obj{"file_path": "f.txt", "old_string": "gamma", "new_string": "G"}), "modified since it was last read", "Read it again")

	// Reading again makes it editable; consecutive edits need no re-read.
	wantOK(t, call(t, env, NameRead, obj{"file_path": "f.txt", "limit": 1}))
	wantOK(t, call(t, env, NameEdit, obj{"file_path": "f.txt", "old_string": "gamma", "new_string": "G"}))
	wantOK(t, call(t, env, NameEdit, obj{"file_path": "f.txt", "old_string": "beta", "new_string": "B"}))
	if got := readFile(t, p); got != "G\nB\n" {
		t.Fatalf("content %q", got)
	}

	// A touch that does not change the content is not a modification.
	later := time.Now().Add(time.Hour)
	os.Chtimes(p, later, later)
	wantOK(t, call(t, env, NameEdit, obj{"file_path": "f.txt", "old_string": "G", "new_string": "g"}))

	// Another Env (another session) has its own read state.
	wantError(t, call(t, NewEnv(root), NameEdit, obj{"file_path": "f.txt", "old_string": "g", "new_string": "h"}), "Read it first")
}

// Write replaces an existing file only when the session has seen it, as
// it is now: otherwise the model would overwrite content it never looked at.
func TestWriteReadState(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p := filepath.Join(root, "ten.txt")
	const ten = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	writeFile(t, p, ten)
	env := NewEnv(root)
	write := obj{"file_path": "ten.txt", "content": "replaced\n"}

	// Never read: refused before the permission question, file kept.
	raw, _ := json.Marshal(write)
	if res, ok := Precheck(t.Context(), newWriteTool(env), raw); ok || !strings.Contains(res.Error, "has not been read") {
		t.Fatalf("Precheck of a Write over an unread file: ok=%v %q", ok, res.Error)
	}
	wantError(t, call(t, env, NameWrite, write), "ten.txt already exists and has not been read", "Read it first")
	if got := readFile(t, p); got != ten {
		t.Fatalf("an unread file was replaced: %q", got)
	}

	// Read, then changed on disk: refused again.
	wantOK(t, call(t, env, NameRead, obj{"file_path": "ten.txt", "limit": 2}))
	info, _ := os.Stat(p)
	writeFile(t, p, "X\n2\n3\n4\n5\n6\n7\n8\n9\n10\n")
	os.Chtimes(p, info.ModTime(), info.ModTime())
	wantError(t, call(t, env, NameWrite, write), "modified since it was last read", "Read it again")

	// Read again: replaced; and a file this session wrote may be written again.
	wantOK(t, call(t, env, NameRead, obj{"file_path": "ten.txt"}))
	wantOK(t, call(t, env, NameWrite, write))
	wantOK(t, call(t, env, NameWrite, obj{"file_path": "ten.txt", "content": "again\n"}))
	if got := readFile(t, p); got != "again\n" {
		t.Fatalf("content %q", got)
	}

	// Another session has seen nothing.
	wantError(t, call(t, NewEnv(root), NameWrite, write), "Read it first")
}

func TestWriteThenEditWithoutRead(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	env := NewEnv(root)
	wantOK(t, call(t, env, NameWrite, obj{"file_path": "n.txt", "content": "hello world\n"}))
	wantOK(t, call(t, env, NameEdit, obj{"file_path": "n.txt", "old_string": "world", "new_string": "there"}))
	if got := readFile(t, filepath.Join(root, "n.txt")); got != "hello there\n" {
		t.Fatalf("content %q", got)
	}
}

func TestEditFileErrors(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "dir"), 0o755)
	env := NewEnv(root)
	wantError(t, call(t, env, NameEdit, obj{"file_path": "missing.txt", "old_string": "a", "new_string": "b"}), "file does not exist: missing.txt", "Write")
	wantError(t, call(t, env, NameEdit, obj{"file_path": "dir", "old_string": "a", "new_string": "b"}), "dir is a directory")

	// An empty old_string on a missing file creates it, like Write.
	r := call(t, env, NameEdit, obj{"file_path": "made/new.txt", "old_string": "", "new_string": "x\ny\n"})
	wantOK(t, r)
	if got := readFile(t, filepath.Join(root, "made/new.txt")); got != "x\ny\n" || !strings.Contains(r.Output, "Created made/new.txt (2 lines)") {
		t.Fatalf("content %q output %q", got, r.Output)
	}
}

func TestEditPreservesMode(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	p := filepath.Join(root, "run.sh")
	writeFile(t, p, "echo hi\n")
	os.Chmod(p, 0o750)
	env := NewEnv(root)
	wantOK(t, call(t, env, NameRead, obj{"file_path": p}))
	wantOK(t, call(t, env, NameEdit, obj{"file_path": p, "old_string": "hi", "new_string": "bye"}))
	if info, _ := os.Stat(p); info.Mode().Perm() != 0o750 {
		t.Fatalf("mode %v", info.Mode().Perm())
	}
}

func TestSnippet(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 100 {
		b.WriteString(strings.Repeat("x", i%7) + "\n")
	}
	s := b.String()
	at := strings.Index(s, "\n\n") + 1 // line 8 (empty)
	got := snippet(s, at, 0)
	if !strings.HasPrefix(got, "     5\t") || !strings.HasSuffix(got, "    11\txxx\n") {
		t.Fatalf("snippet %q", got)
	}
	long := snippet(s, 0, len(s))
	if strings.Count(long, "\n") != snippetMaxLines+1 || !strings.HasSuffix(long, "...\n") {
		t.Fatalf("long snippet not clipped: %q", long)
	}
}
