package repl

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/iostreams"
)

// answer100KB is a realistic long answer: prose paragraphs with inline
// code, bold and links, lists, fenced code and a table, repeated to
// 100 KB.
func answer100KB() string {
	unit := "## Step %d\n\n" +
		"The function `parseConfig` reads the **whole** file before it validates anything, which is why a " +
		"malformed line near the end still costs a full read; see [the docs](https://example.com/config) for the " +
		"format. Moving the check into the scanner keeps memory flat and reports the *first* bad line with its number.\n\n" +
		"- keep the scanner's buffer at 64 KiB\n- report `line N: unexpected key` once\n- 1. nested numbering stays\n\n" +
		"```go\nfunc parseConfig(r io.Reader) (*Config, error) {\n\tsc := bufio.NewScanner(r)\n\tfor sc.Scan() {\n\t\t// …\n\t}\n\treturn cfg, sc.Err()\n}\n```\n\n" +
		"| option | default | meaning |\n|---|---:|---|\n| `timeout` | 30 | seconds before giving up |\n| `retries` | 4 | attempts after a 429 |\n\n"
	var b strings.Builder
	for i := 1; b.Len() < 100<<10; i++ {
		fmt.Fprintf(&b, unit, i)
	}
	return b.String()
}

// BenchmarkStream100KB is the client's whole cost of showing a 100 KB
// answer as it streams: every delta (4 bytes, about a token) through the
// turn's sink — sanitising, Markdown, wrapping at 100 columns — to a
// terminal that costs nothing. The budget is 100 ms per answer, which
// holds only if no delta re-renders what came before it.
func BenchmarkStream100KB(b *testing.B) {
	doc := answer100KB()
	ios, _, _, _ := iostreams.Test()
	ios.Out, ios.ErrOut = io.Discard, io.Discard
	ios.SetTTY(true, true, false) // rendered Markdown, no spinner
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		t := newTurnOutput(ios, "/proj", nil, nil)
		for i := 0; i < len(doc); i += 4 {
			t.Text(doc[i:min(i+4, len(doc))])
		}
		t.finish()
	}
}

// The same answer as one paragraph of 100 KB with no newline: the worst
// case for a renderer that looks back over the open line.
func BenchmarkStream100KBOneLine(b *testing.B) {
	doc := strings.Repeat("word and `code` and **bold** words ", 100<<10/36)
	ios, _, _, _ := iostreams.Test()
	ios.Out, ios.ErrOut = io.Discard, io.Discard
	ios.SetTTY(true, true, false)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		t := newTurnOutput(ios, "/proj", nil, nil)
		for i := 0; i < len(doc); i += 4 {
			t.Text(doc[i:min(i+4, len(doc))])
		}
		t.finish()
	}
}
