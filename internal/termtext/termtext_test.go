package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSafe(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain", "hello\n\tworld", "hello\n\tworld"},
		{"unicode kept", "héllo — 世界 🙂", "héllo — 世界 🙂"},
		{"CSI color", "\x1b[31mred\x1b[0m", "^[[31mred^[[0m"},
		{"OSC 52 clipboard", "\x1b]52;c;ZWNobyBoaQ==\x07", "^[]52;c;ZWNobyBoaQ==^G"},
		{"conceal", "\x1b[8msecret", "^[[8msecret"},
		{"DCS", "\x1bPq#0\x1b\\", "^[Pq#0^[\\"},
		{"carriage return hides", "ls\r; touch HIDDEN", "ls^M; touch HIDDEN"},
		{"CRLF is a line end", "a\r\nb\r\n", "a\nb\n"},
		{"backspace", "rm -rf /\b\b\b\bls", "rm -rf /^H^H^H^Hls"},
		{"DEL and NUL", "a\x7fb\x00c", "a^?b^@c"},
		{"C1 CSI", "a\u009b31mb", "a<U+009B>31mb"},
		{"bidi override", "if x \u202e} {", "if x <U+202E>} {"},
		{"bidi isolate", "\u2066x\u2069", "<U+2066>x<U+2069>"},
		{"invalid byte", "a\x9bb", "a<0x9B>b"},
		{"replacement char kept", "a\uFFFDb", "a\uFFFDb"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Safe(tt.in); got != tt.want {
				t.Errorf("Safe(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestStreamSplitSequences feeds texts byte by byte: a CRLF, a multi-byte
// character and a C1 control split across pieces come out as Safe of the
// whole.
func TestStreamSplitSequences(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"line\r\nnext", "a\rb", "é\u009b世\u202e🙂", "\x1b]52;c;eA==\x07", "end\r", "cut\xe2\x82",
	} {
		var st Stream
		var got strings.Builder
		for i := 0; i < len(text); i++ {
			got.WriteString(st.Next(text[i : i+1]))
		}
		got.WriteString(st.Flush())
		if want := Safe(text); got.String() != want {
			t.Errorf("stream of %q = %q, want %q", text, got.String(), want)
		}
	}
}

func TestSafePlainDoesNotCopy(t *testing.T) {
	s := strings.Repeat("plain text, ünïcode\n", 100)
	if got := Safe(s); got != s {
		t.Fatal("plain text changed")
	}
	if n := testing.AllocsPerRun(10, func() { _ = Safe(s) }); n != 0 {
		t.Errorf("Safe of plain text allocates %v times", n)
	}
}

// FuzzSafe checks the guarantee the package gives: whatever goes in,
// nothing a terminal obeys comes out, and a stream cut anywhere says the
// same as the whole.
func FuzzSafe(f *testing.F) {
	for _, s := range []string{
		"plain", "\x1b[2J\x1b[H", "\x1b]52;c;aGk=\x1b\\", "a\r\nb\rc", "\u009b\u202e\u2066", "\xff\xe2\x82", "🙂\b",
	} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		out := Safe(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Safe(%q) = %q is not valid UTF-8", s, out)
		}
		for _, r := range out {
			if r != '\n' && r != '\t' && visibleForm(r) != "" {
				t.Fatalf("Safe(%q) = %q keeps %U", s, out, r)
			}
		}
		if len(s) == 0 {
			return
		}
		if cut < 0 {
			cut = -cut
		}
		cut %= len(s) + 1
		var st Stream
		got := st.Next(s[:cut]) + st.Next(s[cut:]) + st.Flush()
		if got != out {
			t.Fatalf("stream cut at %d of %q = %q, want %q", cut, s, got, out)
		}
	})
}

func TestWriter(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	w := NewWriter(&b)
	for _, p := range []string{"a\r", "\nb\x1b", "[2J\xe2\x80", "\xaec\r"} {
		if n, err := w.Write([]byte(p)); err != nil || n != len(p) {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := "a\nb^[[2J<U+202E>c^M"; b.String() != want {
		t.Errorf("written %q, want %q", b.String(), want)
	}
}

func TestLineKeepsTextOnOneLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain path":            "plain path",
		"a\nFORGED\trow":        "a^JFORGED^Irow",
		"crlf\r\nend":           "crlf^Jend",
		"\x1b]52;c;eA==\x07 ok": "^[]52;c;eA==^G ok",
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestForKeepsDataWhenNotATerminal(t *testing.T) {
	t.Parallel()
	const text = "data\x1b[31m\n"
	var data, shown strings.Builder
	for _, c := range []struct {
		b        *strings.Builder
		terminal bool
	}{{&data, false}, {&shown, true}} {
		w := For(c.b, c.terminal)
		if _, err := w.Write([]byte(text)); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if data.String() != text || shown.String() != "data^[[31m\n" {
		t.Errorf("redirected %q, on a terminal %q", data.String(), shown.String())
	}
}
