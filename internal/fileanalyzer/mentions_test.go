package fileanalyzer

import (
	"slices"
	"strings"
	"testing"
)

func TestAppendMentions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want []string
	}{
		{"edit internal/foo/bar.go please", []string{"internal/foo/bar.go"}},
		{"see ./README.md.", []string{"./README.md"}},
		{"ran /abs/x.py, then ../up/y.ts!", []string{"/abs/x.py", "../up/y.ts"}},
		{"`cmd/clawdcode/main.go` and (docs/a.md) and \"q.json\"", []string{"cmd/clawdcode/main.go", "docs/a.md", "q.json"}},
		{"main.go:12:3: undefined: x\nmain.go:14:1: y", []string{"main.go", "main.go"}},
		{"a.go b.go", []string{"a.go", "b.go"}},
		{"Makefile and .gitignore and dir/ and v1.2.3 and 3.14", nil},
		{"fmt.Println(os.Getenv) resp.Choices", nil},
		{"https://github.com/x/y/blob/main/z.go", nil},
		{"file:///etc/passwd.txt", nil},
		{"~/notes.md $HOME/a.go %APPDATA%/b.go", nil},
		{"C.H and Foo.JAVA and style.Css", []string{"C.H", "Foo.JAVA"}},
		{"node_modules/@types/node/index.d.ts", []string{"node_modules/@types/node/index.d.ts"}},
		{"", nil},
		// Non-ASCII names are left to the tool calls that name them.
		{"日本語/ファイル.go", nil},
	}
	for _, tt := range tests {
		got := appendMentions(nil, tt.text)
		if !slices.Equal(got, tt.want) {
			t.Errorf("appendMentions(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func FuzzAppendMentions(f *testing.F) {
	for _, s := range []string{"edit internal/foo/bar.go please", "https://x.io/a.go", "a.go:1: b.py", "...", ".a.b./c.d."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, m := range appendMentions(nil, text) {
			if !strings.Contains(text, m) {
				t.Fatalf("mention %q is not in the text", m)
			}
			for i := 0; i < len(m); i++ {
				if !pathBytes[m[i]] {
					t.Fatalf("mention %q holds byte %q", m, m[i])
				}
			}
			base := m[strings.LastIndexByte(m, '/')+1:]
			if dot := strings.LastIndexByte(base, '.'); dot <= 0 || !plausibleExtension(base[dot+1:]) || strings.HasPrefix(m, "//") || strings.HasPrefix(m, "~") {
				t.Fatalf("mention %q is not a plausible path", m)
			}
		}
	})
}
