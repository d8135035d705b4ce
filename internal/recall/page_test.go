package recall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/storage"
	"github.com/clawdcode/clawdcode/internal/tools"
)

// mixedText is n bytes or a little more of lines mixing one-, two-, three-
// and four-byte characters and characters JSON escapes, so that pages
// end inside characters and escapes.
func mixedText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%05d héllo wörld ✓ 😀 \"q\" \\ <tag> &\t\x01 end\n", i)
	}
	return b.String()
}

// sessionWithResult is a session whose tool result is mixedText(n), and
// its searcher.
func sessionWithResult(t *testing.T, n int) (*Searcher, *storage.Record, string) {
	t.Helper()
	f := newFixture(t)
	text := mixedText(n)
	rec := result("c1", text)
	id := f.session(t, user("run it"), bash("c1", "gen"), rec, assistant("done"))
	return f.searcher(id), rec, text
}

// readPages reads the record ref through Around and then Page calls of
// size bytes from where each page ended, and returns the pages joined.
func readPages(t *testing.T, s *Searcher, ref string, size int) string {
	t.Helper()
	ctx := context.Background()
	hits, err := s.Around(ctx, ref, tools.ScopeSession, 2)
	if err != nil {
		t.Fatal(err)
	}
	var first tools.RecallHit
	for _, h := range hits {
		if h.Ref {
			first = h
		}
	}
	got := first.Text
	for next := first.Offset + len(first.Text); next < first.Total; {
		h, err := s.Page(ctx, ref, tools.ScopeSession, next, size)
		if err != nil {
			t.Fatalf("page at %d: %v", next, err)
		}
		if h.Offset != next || !utf8.ValidString(h.Text) || len(h.Text) > size || h.Total != first.Total || len(h.Text) == 0 {
			t.Fatalf("page at %d: %d bytes from %d of %d, valid %v", next, len(h.Text), h.Offset, h.Total, utf8.ValidString(h.Text))
		}
		got += h.Text
		next += len(h.Text)
	}
	return got
}

// A 48 KB record read a page at a time, through the first page Around
// shows and then pages of several sizes (odd ones end inside characters),
// comes back byte for byte; every page is valid UTF-8.
func TestPagesReproduceARecord(t *testing.T) {
	t.Parallel()
	s, rec, text := sessionWithResult(t, 48<<10)
	for _, size := range []int{tools.RecallPageCap, 1001, 4097} {
		if got := readPages(t, s, rec.UUID[:8], size); got != text {
			t.Fatalf("pages of %d bytes: %d bytes back of %d, first difference at %d", size, len(got), len(text), firstDiff(got, text))
		}
	}
}

// The same for a record past hugeLine, whose pages are decoded from its
// line without decoding the rest.
func TestPagesReproduceAHugeRecord(t *testing.T) {
	t.Parallel()
	s, rec, text := sessionWithResult(t, hugeLine+4096)
	// Pages of 256 KiB keep the test quick; the size changes nothing.
	if got := readPages(t, s, rec.UUID, 256<<10+3); got != text {
		t.Fatalf("%d bytes back of %d, first difference at %d", len(got), len(text), firstDiff(got, text))
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// An offset inside a character starts the page at the next one; an
// offset at or past the end is an error that says how long the text is.
func TestPageRuneBoundariesAndEnd(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	text := strings.Repeat("😀", 3000) // 12,000 bytes
	rec := assistant(text)
	id := f.session(t, user("smile"), rec)
	s := f.searcher(id)
	ctx := context.Background()
	h, err := s.Page(ctx, rec.UUID, tools.ScopeSession, 4*100+2, 4*10+1)
	if err != nil {
		t.Fatal(err)
	}
	if h.Offset != 4*101 || h.Text != strings.Repeat("😀", 9) || h.Total != len(text) {
		t.Fatalf("page from inside a character: %q from %d of %d", h.Text, h.Offset, h.Total)
	}
	for _, off := range []int{len(text), len(text) + 1, math.MaxInt} {
		if _, err := s.Page(ctx, rec.UUID, tools.ScopeSession, off, 100); !errors.Is(err, ErrPastEnd) || !strings.Contains(err.Error(), "12000 bytes") {
			t.Fatalf("offset %d: %v", off, err)
		}
	}
}

var nextCall = regexp.MustCompile(`\[bytes (\d+)–(\d+) of (\d+); Recall ref=(\S+) offset=(\d+) shows the next part\]`)

// Through the tool: the first answer says which bytes it shows and gives
// the exact next call, and following those calls reads the whole record,
// each answer under OutputCap, the last one saying it is the end.
func TestRecallToolPagesThroughARecord(t *testing.T) {
	t.Parallel()
	s, rec, text := sessionWithResult(t, 100<<10)
	tool := tools.NewRecall(s)
	ctx := context.Background()
	res := tool.Run(ctx, json.RawMessage(`{"ref":"`+rec.UUID[:8]+`"}`))
	m := nextCall.FindStringSubmatch(res.Output)
	if m == nil || m[1] != "0" || m[2] != m[5] || m[3] != strconv.Itoa(len(text)) || m[4] != rec.UUID {
		t.Fatalf("first answer: %v in %s", m, res.Output[max(0, len(res.Output)-3000):])
	}
	got := text[:atoi(t, m[2])]
	calls := 0
	for ; m != nil; calls++ {
		res = tool.Run(ctx, json.RawMessage(`{"ref":"`+m[4]+`","offset":`+m[5]+`}`))
		if res.Error != "" || len(res.Output) > tools.OutputCap {
			t.Fatalf("page answer: %d bytes, error %q", len(res.Output), res.Error)
		}
		// The answer: a line, the record's header, the page, the note.
		lines := strings.SplitN(res.Output, "\n", 3)
		got += lines[2][:strings.LastIndex(lines[2], "\n[bytes ")]
		m = nextCall.FindStringSubmatch(res.Output)
	}
	if got != text {
		t.Fatalf("the pages joined: %d bytes of %d, first difference at %d", len(got), len(text), firstDiff(got, text))
	}
	if !strings.HasSuffix(res.Output, fmt.Sprintf("of %d: the end of record %s]", len(text), rec.UUID)) || calls < 3 {
		t.Fatalf("last answer after %d calls: %s", calls, res.Output[max(0, len(res.Output)-300):])
	}
	res = tool.Run(ctx, json.RawMessage(`{"ref":"`+rec.UUID+`","offset":`+strconv.Itoa(len(text))+`}`))
	if !strings.Contains(res.Error, "past the end") {
		t.Fatalf("offset at the end: %+v", res)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
