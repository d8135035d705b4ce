package termtext

import (
	"strings"
	"testing"
)

func TestFirstLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s, more string
		max     int
		want    string
	}{
		{"  hello  ", "…", 0, "hello"},
		{"one\ntwo", "…", 0, "one…"},
		{"one\r\ntwo", " …", 0, "one …"},
		{"one\ntwo", "", 0, "one"},
		{"\n\nlater line\n", "…", 0, "later line"},
		{"héllo wörld", "…", 5, "héllo…"},
		{"héllo", "…", 5, "héllo"},
		{"", "…", 3, ""},
	} {
		if got := FirstLine(c.s, c.max, c.more); got != c.want {
			t.Errorf("FirstLine(%q, %d, %q) = %q, want %q", c.s, c.max, c.more, got, c.want)
		}
	}
}

func TestFlatten(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s    string
		max  int
		want string
	}{
		{"  a\n\tb   c \n", 0, "a b c"},
		{"a b c", 5, "a b c"},
		{"a b cd", 5, "a b …"},
		{"日本語の文章です", 4, "日本語…"},
		// Only the first 8*max+8 bytes are looked at: what follows them
		// is cut without being read.
		{"x" + strings.Repeat(" ", 100) + "y", 2, "x…"},
	} {
		if got := Flatten(c.s, c.max); got != c.want {
			t.Errorf("Flatten(%q, %d) = %q, want %q", c.s, c.max, got, c.want)
		}
	}
}

func TestShortID(t *testing.T) {
	t.Parallel()
	if got := ShortID("3f2a9c1e-0000-4000-8000-000000000000"); got != "3f2a9c1e" {
		t.Errorf("ShortID = %q", got)
	}
	if got := ShortID("3f2a"); got != "3f2a" {
		t.Errorf("ShortID of a short id = %q", got)
	}
}
