package repl

import (
	"strings"
	"testing"
)

func TestFitLine(t *testing.T) {
	t.Parallel()
	cs := colorScheme{on: true}
	tests := []struct {
		name, line string
		width      int
		want       []string
	}{
		{"fits, untouched", "a  line   that fits\t", 20, []string{"a  line   that fits\t"}},
		{"at words", "Started a new session; the previous one stays", 20,
			[]string{"Started a new", "session; the", "previous one stays"}},
		{"indentation kept on every row", "    one two three four five six", 16,
			[]string{"    one two", "    three four", "    five six"}},
		{"a word longer than a row", "see /a/very/long/path/to/a/file", 12,
			[]string{"see", "/a/very/long", "/path/to/a/f", "ile"}},
		{"styles word by word", styleWords(cs.dim, "Resume with: clawdcode -r 0123"), 14,
			[]string{cs.dim("Resume") + " " + cs.dim("with:"), cs.dim("clawdcode") + " " + cs.dim("-r"), cs.dim("0123")}},
	}
	for _, tt := range tests {
		if got := fitLine(tt.line, tt.width); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s: fitLine(%q, %d) = %q, want %q", tt.name, tt.line, tt.width, got, tt.want)
		}
	}
}

func TestFitWriter(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	f := &fitWriter{w: &out, width: func() int { return 12 }}
	f.Write([]byte("short\nlonger than twelve\nunfin"))
	if got := out.String(); got != "short\nlonger than\ntwelve\n" {
		t.Fatalf("complete lines: %q", got)
	}
	f.Write([]byte("ished and long"))
	f.Flush()
	if got := out.String(); !strings.HasSuffix(got, "\nunfinished\nand long") {
		t.Fatalf("the unfinished line, at Flush: %q", got)
	}

	out.Reset()
	data := "not a terminal: a line longer than twelve, as it is"
	f = &fitWriter{w: &out} // width nil: not a terminal
	f.Write([]byte(data))
	f.Flush()
	if out.String() != data {
		t.Fatalf("not a terminal: %q, want it untouched", out.String())
	}
}
