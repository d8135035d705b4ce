package tools

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

var markerRE = regexp.MustCompile(`\[\.\.\. (\d+) bytes \((\d+) lines\) omitted \.\.\.\]\n`)

// checkCapped asserts the capped rendering of full: it is full itself when
// it fits, else a prefix of full, a marker counting exactly the bytes and
// lines left out, and a suffix of full.
func checkCapped(t *testing.T, full, got string, limit int) {
	t.Helper()
	if len(full) <= limit {
		if got != full {
			t.Fatalf("fitting text changed: got %q want %q", got, full)
		}
		return
	}
	loc := markerRE.FindStringSubmatchIndex(got)
	if loc == nil {
		t.Fatalf("no marker in capped output of %d bytes: %q", len(full), got)
	}
	head, tail := got[:loc[0]], got[loc[1]:]
	omitted, _ := strconv.Atoi(got[loc[2]:loc[3]])
	lines, _ := strconv.Atoi(got[loc[4]:loc[5]])
	// The renderer ends the head with a newline before the marker when the
	// kept head does not end in one; the byte count tells which it was.
	if len(full)-omitted-len(tail) == len(head)-1 {
		head = strings.TrimSuffix(head, "\n")
	}
	if !strings.HasPrefix(full, head) {
		t.Fatalf("head is not a prefix of the input: %q", head)
	}
	if !strings.HasSuffix(full, tail) {
		t.Fatalf("tail is not a suffix of the input: %q", tail)
	}
	if omitted != len(full)-len(head)-len(tail) {
		t.Fatalf("marker says %d bytes omitted, really %d", omitted, len(full)-len(head)-len(tail))
	}
	middle := full[len(head) : len(full)-len(tail)]
	if lines != strings.Count(middle, "\n") {
		t.Fatalf("marker says %d lines omitted, really %d", lines, strings.Count(middle, "\n"))
	}
	if len(head)+len(tail) > limit {
		t.Fatalf("kept %d bytes, limit %d", len(head)+len(tail), limit)
	}
	if utf8.ValidString(full) && !utf8.ValidString(got) {
		t.Fatalf("capping split a UTF-8 sequence: %q", got)
	}
}

func TestCapText(t *testing.T) {
	t.Parallel()
	var lines strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&lines, "line %d\n", i)
	}
	tests := []struct {
		name  string
		text  string
		limit int
	}{
		{"fits", "short\n", 100},
		{"exactly fits", strings.Repeat("x", 100), 100},
		{"no limit", strings.Repeat("x", 1000), 0},
		{"no newlines", strings.Repeat("x", 1000), 100},
		{"lines", lines.String(), 200},
		{"multibyte", strings.Repeat("日本語テキスト", 200), 101},
		{"emoji lines", strings.Repeat("🙂🙃\n", 300), 99},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CapText(tt.text, tt.limit)
			if tt.limit <= 0 {
				if got != tt.text {
					t.Fatal("uncapped text changed")
				}
				return
			}
			checkCapped(t, tt.text, got, tt.limit)
		})
	}
	got := CapText(lines.String(), 200)
	if !strings.HasPrefix(got, "line 0\n") || !strings.HasSuffix(got, "line 999\n") {
		t.Errorf("capped lines should keep whole first and last lines: %q", got)
	}
}

// TestCappedBufferWrites feeds random write sizes and checks the result
// against the same text capped in one piece.
func TestCappedBufferWrites(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		limit := 1 + r.IntN(300)
		var full strings.Builder
		for full.Len() < r.IntN(2000) {
			fmt.Fprintf(&full, "%d:%s\n", full.Len(), strings.Repeat("é", r.IntN(20)))
		}
		text := full.String()
		b := NewCappedBuffer(limit)
		for rest := text; rest != ""; {
			n := min(len(rest), 1+r.IntN(limit*2))
			b.Write([]byte(rest[:n]))
			rest = rest[n:]
		}
		if b.Len() != int64(len(text)) {
			t.Fatalf("trial %d: Len %d, want %d", trial, b.Len(), len(text))
		}
		got := b.String()
		if want := CapText(text, limit); got != want {
			t.Fatalf("trial %d (limit %d): piecewise %q\n one piece %q", trial, limit, got, want)
		}
		checkCapped(t, text, got, limit)
	}
}

func TestCappedBufferMemoryBounded(t *testing.T) {
	t.Parallel()
	b := NewCappedBuffer(1000)
	chunk := []byte(strings.Repeat("abcdefghi\n", 1000))
	for range 5000 { // 50 MB
		b.Write(chunk)
	}
	if c := cap(b.head) + cap(b.ring); c > 2000 {
		t.Fatalf("buffer holds %d bytes of capacity for a 1000-byte cap", c)
	}
	got := b.String()
	if !strings.Contains(got, "[... 49999") || !strings.Contains(got, "lines) omitted ...]") {
		t.Fatalf("unexpected marker: %q", got)
	}
}
