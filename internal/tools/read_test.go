package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func numbered(from, to int, text func(int) string) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i, text(i))
	}
	return b.String()
}

func TestRead(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	lineText := func(i int) string { return fmt.Sprintf("line %d", i) }
	var tenLines strings.Builder
	for i := 1; i <= 10; i++ {
		tenLines.WriteString(lineText(i) + "\n")
	}
	writeFile(t, filepath.Join(root, "ten.txt"), tenLines.String())
	writeFile(t, filepath.Join(root, "sub/noeol.txt"), "a\nb")
	writeFile(t, filepath.Join(root, "crlf.txt"), "a\r\nb\r\n")
	writeFile(t, filepath.Join(root, "empty.txt"), "")
	writeFile(t, filepath.Join(root, "bin.dat"), "abc\x00def")
	writeFile(t, filepath.Join(root, "long.txt"), strings.Repeat("é", 1500)+"\nshort\n")
	var big strings.Builder
	for i := 1; i <= 2500; i++ {
		big.WriteString(lineText(i) + "\n")
	}
	writeFile(t, filepath.Join(root, "big.txt"), big.String())

	tests := []struct {
		name    string
		input   obj
		want    string // exact output, when set
		prefix  string
		suffix  string
		wantErr []string
	}{
		{name: "whole file", input: obj{"file_path": "ten.txt"}, want: numbered(1, 10, lineText)},
		{name: "absolute path", input: obj{"file_path": filepath.Join(root, "ten.txt"), "limit": 2}, prefix: numbered(1, 2, lineText), suffix: "(Showing lines 1-2 of 10. Use offset=3 to read more.)\n"},
		{name: "offset and limit", input: obj{"file_path": "ten.txt", "offset": 4, "limit": 3}, prefix: numbered(4, 6, lineText), suffix: "Use offset=7 to read more.)\n"},
		{name: "offset to the end", input: obj{"file_path": "ten.txt", "offset": 9}, want: numbered(9, 10, lineText)},
		{name: "offset zero means start", input: obj{"file_path": "ten.txt", "offset": 0, "limit": 1}, prefix: "     1\tline 1\n"},
		{name: "limit exactly to the end", input: obj{"file_path": "ten.txt", "offset": 8, "limit": 3}, want: numbered(8, 10, lineText)},
		{name: "last line without newline", input: obj{"file_path": "sub/noeol.txt"}, want: "     1\ta\n     2\tb\n"},
		{name: "crlf shown without cr", input: obj{"file_path": "crlf.txt"}, want: "     1\ta\n     2\tb\n"},
		{name: "empty file", input: obj{"file_path": "empty.txt"}, want: "(empty.txt exists but is empty)"},
		{name: "default limit 2000", input: obj{"file_path": "big.txt"}, prefix: numbered(1, 3, lineText), suffix: "  2000\tline 2000\n\n(Showing lines 1-2000 of 2500. Use offset=2001 to read more.)\n"},
		{name: "long line truncated", input: obj{"file_path": "long.txt"}, prefix: "     1\t" + strings.Repeat("é", 1000) + " … [line truncated: 2000 of 3000 bytes shown]\n     2\tshort\n"},
		{name: "offset past end", input: obj{"file_path": "ten.txt", "offset": 11}, wantErr: []string{"offset 11 is past the end", "10 lines"}},
		{name: "missing", input: obj{"file_path": "nope.txt"}, wantErr: []string{"file does not exist: nope.txt"}},
		{name: "directory", input: obj{"file_path": "sub"}, wantErr: []string{"sub is a directory"}},
		{name: "binary", input: obj{"file_path": "bin.dat"}, wantErr: []string{"binary file"}},
	}
	env := NewEnv(root)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, env, NameRead, tt.input)
			if tt.wantErr != nil {
				wantError(t, r, tt.wantErr...)
				return
			}
			wantOK(t, r)
			if tt.want != "" && r.Output != tt.want {
				t.Fatalf("got %q\nwant %q", clip(r.Output), tt.want)
			}
			if !strings.HasPrefix(r.Output, tt.prefix) || !strings.HasSuffix(r.Output, tt.suffix) {
				t.Fatalf("got %q\nwant prefix %q suffix %q", clip(r.Output), tt.prefix, tt.suffix)
			}
		})
	}
}

func TestReadPageBudget(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	// 500 lines of ~1000 bytes: the 100 KB page budget ends the read early.
	line := strings.Repeat("x", 990)
	var b strings.Builder
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&b, "%03d %s\n", i, line)
	}
	writeFile(t, filepath.Join(root, "wide.txt"), b.String())
	env := NewEnv(root)
	r := call(t, env, NameRead, obj{"file_path": "wide.txt"})
	wantOK(t, r)
	if len(r.Output) > readPageBudget+200 {
		t.Fatalf("output %d bytes exceeds the page budget", len(r.Output))
	}
	var last int
	fmt.Sscanf(r.Output[strings.LastIndex(r.Output, "offset=")+len("offset="):], "%d", &last)
	if last < 50 || last > 110 {
		t.Fatalf("continuation offset %d not plausible: %q", last, r.Output[len(r.Output)-200:])
	}
	if !strings.Contains(r.Output, fmt.Sprintf("of 500. Use offset=%d", last)) {
		t.Fatalf("missing total: %q", r.Output[len(r.Output)-200:])
	}
	// The continuation starts exactly at the first line not shown.
	next := call(t, env, NameRead, obj{"file_path": "wide.txt", "offset": last, "limit": 1})
	if !strings.HasPrefix(next.Output, fmt.Sprintf("%6d\t%03d ", last, last)) {
		t.Fatalf("continuation: %q", next.Output[:40])
	}
	if strings.Contains(r.Output, fmt.Sprintf("\n%6d\t", last)) {
		t.Fatalf("line %d was shown although offset=%d is named for it", last, last)
	}
}

func TestReadUnreadableIsError(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root reads everything")
	}
	root := t.TempDir()
	p := filepath.Join(root, "secret.txt")
	writeFile(t, p, "x")
	os.Chmod(p, 0)
	wantError(t, call(t, NewEnv(root), NameRead, obj{"file_path": p}), "permission denied")
}
