package repl

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// plainStyles makes expected outputs readable: every escape becomes a tag.
var plainStyles = strings.NewReplacer(
	styleBold, "<b>", styleDim, "<dim>", styleItalic, "<i>", styleNormal, "</>",
	styleNoItalic, "</i>", styleCode, "<code>", styleFgReset, "</code>",
)

func render(t *testing.T, chunks ...string) string {
	t.Helper()
	var out strings.Builder
	m := newMarkdownWriter(&out, nil)
	for _, c := range chunks {
		if err := m.WriteString(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Flush(); err != nil {
		t.Fatal(err)
	}
	return plainStyles.Replace(out.String())
}

func TestMarkdownLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello world\n", "hello world\n"},
		{"heading", "## Plan ##\n", "<b>Plan</>\n"},
		{"not a heading", "#hashtag\n", "#hashtag\n"},
		{"code span", "run `go test` now\n", "run <code>go test</code> now\n"},
		{"double backtick span", "a ``x ` y`` b\n", "a <code>x ` y</code> b\n"},
		{"unclosed code span", "a `b\n", "a `b\n"},
		{"bold", "a **big** deal\n", "a <b>big</> deal\n"},
		{"bold underscores", "__big__\n", "<b>big</>\n"},
		{"italic", "an *odd* one\n", "an <i>odd</i> one\n"},
		{"multiplication is not italic", "2 * 3 * 4\n", "2 * 3 * 4\n"},
		{"code inside bold", "**see `x`**\n", "<b>see <code>x</code></>\n"},
		{"bullets", "- one\n* two\n  + nested\n", "• one\n• two\n  • nested\n"},
		{"numbered list untouched", "1. first\n", "1. first\n"},
		{"quote", "> careful\n", "<dim>│ </><i>careful</i>\n"},
		{"rule", "---\n", "<dim>" + strings.Repeat("─", 40) + "</>\n"},
		{"link", "see [docs](https://x.dev)\n", "see docs <dim>(https://x.dev)</>\n"},
		{"escaped star", `a \*b\* c` + "\n", "a *b* c\n"},
		{"crlf", "a\r\nb\r\n", "a\nb\n"},
		{"partial last line flushed", "no newline", "no newline\n"},
		{
			"fence with language",
			"```go\nfunc main() {\n\t# not a heading\n}\n```\nafter\n",
			"<dim>┌─── go</>\n<code>func main() {</code>\n<code>\t# not a heading</code>\n<code>}</code>\n<dim>└───</>\nafter\n",
		},
		{
			"tilde fence, backticks inside",
			"~~~\n```\n~~~\n",
			"<dim>┌───</>\n<code>```</code>\n<dim>└───</>\n",
		},
		{"inline triple backticks are not a fence", "```x``` y\n", "<code>x</code> y\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := render(t, tt.in); got != tt.want {
				t.Errorf("render(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// A stream may be cut anywhere, even inside a multi-byte rune or an escape:
// the rendered result must not depend on where.
func TestMarkdownChunkBoundaries(t *testing.T) {
	t.Parallel()
	doc := "# Título\n\nUse `go test ./...` and **then** *check*:\n\n```bash\nmake test\n```\n- ünïcødé ✓\n> quote [x](y)\nlast line without newline"
	want := render(t, doc)
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		var chunks []string
		rest := doc
		for rest != "" {
			n := 1 + rng.IntN(min(len(rest), 7))
			chunks = append(chunks, rest[:n])
			rest = rest[n:]
		}
		if got := render(t, chunks...); got != want {
			t.Fatalf("chunks %q\n got %q\nwant %q", chunks, got, want)
		}
	}
}

func TestMarkdownHoldsPartialLine(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	m := newMarkdownWriter(&out, nil)
	m.WriteString("**bo")
	if out.Len() != 0 || !m.Pending() {
		t.Fatalf("partial line written early: %q", out.String())
	}
	m.WriteString("ld**\nnext")
	if got := plainStyles.Replace(out.String()); got != "<b>bold</>\n" {
		t.Fatalf("after newline: %q", got)
	}
}

func BenchmarkMarkdown(b *testing.B) {
	doc := strings.Repeat("Some text with `code` and **bold** words, a [link](u).\n- item\n```go\nx := 1\n```\n", 20)
	var out strings.Builder
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		out.Reset()
		m := newMarkdownWriter(&out, nil)
		for i := 0; i < len(doc); i += 16 {
			m.WriteString(doc[i:min(i+16, len(doc))])
		}
		m.Flush()
	}
}

// Prose is written word by word as it streams, before its line ends, and
// never a word whose inline span is still open.
func TestMarkdownStreamsWords(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	m := newMarkdownWriter(&out, func() int { return 80 })
	m.WriteString("Streaming shows words ")
	if got := out.String(); got != "Streaming shows words" {
		t.Fatalf("complete words not shown: %q", got)
	}
	m.WriteString("and **held bo")
	if got := out.String(); got != "Streaming shows words and" {
		t.Fatalf("an open bold span was cut: %q", got)
	}
	m.WriteString("ld** text\n")
	if got := plainStyles.Replace(out.String()); got != "Streaming shows words and <b>held bold</> text\n" {
		t.Fatalf("got %q", got)
	}
}

// Prose wraps at the width at word boundaries, list items with a hanging
// indent; a width change applies from the next word.
func TestMarkdownWraps(t *testing.T) {
	t.Parallel()
	width := 20
	var out strings.Builder
	m := newMarkdownWriter(&out, func() int { return width })
	m.WriteString("- one two three four five six\n")
	m.Flush()
	if got := out.String(); got != "• one two three four\n  five six\n" {
		t.Fatalf("got %q", got)
	}
	out.Reset()
	width = 40
	m.WriteString("alpha bravo charlie delta echo foxtrot golf\n")
	m.Flush()
	if got := out.String(); got != "alpha bravo charlie delta echo foxtrot\ngolf\n" {
		t.Fatalf("after a resize: %q", got)
	}
}

func TestMarkdownTable(t *testing.T) {
	t.Parallel()
	got := render(t, "| a | long header |\n|:-:|---:|\n| x | 1 |\n| **yy** | 22 |\nafter\n")
	want := "<dim>┌────┬─────────────┐</>\n" +
		"<dim>│</> <b>a</>  <dim>│</> <b>long header</> <dim>│</>\n" +
		"<dim>├────┼─────────────┤</>\n" +
		"<dim>│</> x  <dim>│</>           1 <dim>│</>\n" +
		"<dim>│</> <b>yy</> <dim>│</>          22 <dim>│</>\n" +
		"<dim>└────┴─────────────┘</>\n" +
		"after\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
