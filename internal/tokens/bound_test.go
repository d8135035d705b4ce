package tokens

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// boundStrings are the fixture texts plus shapes that stress the
// byte bound: invalid UTF-8 (each bad byte becomes a 3-byte U+FFFD),
// lone bytes, emoji, combining marks, special-token spellings.
func boundStrings(t testing.TB) []string {
	var out []string
	for _, v := range tokenVectors(t) {
		out = append(out, v.Text)
	}
	for _, s := range corpusSamples(t) {
		out = append(out, s.Text)
	}
	return append(out,
		"", "\x00", "\xff", "\xff\xfe\xfd\xfc", "a\xffb\xc0c", "\xe4\xbd", // truncated 你
		strings.Repeat("\xff", 100), "👍👍👍", "e\u0301\u0301\u0301", "<|endoftext|><|fim_prefix|>",
		strings.Repeat("=", 3000), strings.Repeat(" ", 2000)+"x", "\r\n\r\n\t\t",
	)
}

func assertBound(t *testing.T, c *Counter, content, name string) {
	t.Helper()
	m := chat.Message{Role: chat.RoleAssistant, Content: content, Name: name, ToolCallID: name,
		ToolCalls: []chat.ToolCall{{ID: "x", Name: name, Arguments: content}}}
	if ub, exact := MessageUpperBound(m), c.Message(m); ub < exact {
		t.Fatalf("%s: MessageUpperBound = %d < Message = %d for content %q name %q", c.Encoding(), ub, exact, content, name)
	}
}

func TestMessageUpperBoundHoldsOnFixtures(t *testing.T) {
	t.Parallel()
	for _, model := range []string{"gpt-4o", "gpt-4"} {
		c := NewCounter(model)
		for _, s := range boundStrings(t) {
			assertBound(t, c, s, s)
		}
	}
}

func TestMessageUpperBoundHoldsOnRandomStrings(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	alphabets := []func() string{
		func() string { return string(rune(rng.IntN(128))) },                        // ASCII incl. controls
		func() string { return string(rune(rng.IntN(0x10FFFF))) },                   // any code point (surrogates become U+FFFD)
		func() string { return string([]byte{byte(rng.IntN(256))}) },                // raw bytes, mostly invalid
		func() string { return string(rune(0x4E00 + rng.IntN(0x5000))) },            // Han
		func() string { return []string{" ", "\n", "\t", "<|", "|>"}[rng.IntN(5)] }, // separators
	}
	for _, model := range []string{"gpt-4o", "gpt-4"} {
		c := NewCounter(model)
		for i := 0; i < 300; i++ {
			var b strings.Builder
			n := rng.IntN(200)
			for j := 0; j < n; j++ {
				b.WriteString(alphabets[rng.IntN(len(alphabets))]())
			}
			assertBound(t, c, b.String(), "")
		}
	}
}

func TestByteLenCountsInvalidBytesAsReplacement(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		want int
	}{
		{"", 0}, {"abc", 3}, {"你", 3}, {"\xff", 3}, {"a\xffb", 5}, {"\xe4\xbd", 6},
	}
	for _, tt := range tests {
		if got := byteLen(tt.s); got != tt.want {
			t.Errorf("byteLen(%q) = %d, want %d", tt.s, got, tt.want)
		}
		if got := byteLen(tt.s); got != len(string([]rune(tt.s))) {
			t.Errorf("byteLen(%q) = %d, disagrees with the rune conversion the tokenizer does", tt.s, got)
		}
	}
}

func FuzzUpperBound(f *testing.F) {
	for _, s := range boundStrings(f) {
		f.Add(s, "")
	}
	f.Add("hello", "example_user")
	c4o, c4 := NewCounter("gpt-4o"), NewCounter("gpt-4")
	f.Fuzz(func(t *testing.T, content, name string) {
		if len(content) > 4096 {
			content = content[:4096] // keep each input fast
		}
		assertBound(t, c4o, content, name)
		assertBound(t, c4, content, name)
	})
}

func TestEstimateIsWithinAFactorOfTwo(t *testing.T) {
	t.Parallel()
	type sample struct {
		enc, text string
		count     int
	}
	var samples []sample
	for _, v := range tokenVectors(t) {
		if !v.AllowSpecial {
			samples = append(samples, sample{v.Encoding, v.Text, v.Count})
		}
	}
	for _, s := range corpusSamples(t) {
		samples = append(samples, sample{s.Encoding, s.Text, s.Count})
	}
	for _, s := range samples {
		est := Estimate(s.text)
		// Tiny strings round badly either way; allow a few tokens of slack.
		if est*2+3 < s.count || est > s.count*2+3 {
			t.Errorf("%s: Estimate(%q) = %d, exact %d", s.enc, s.text, est, s.count)
		}
	}
}

func TestEstimateSeesCJK(t *testing.T) {
	t.Parallel()
	cjk := strings.Repeat("你好世界", 100)
	if got := Estimate(cjk); got < utf8.RuneCountInString(cjk) {
		t.Errorf("Estimate(CJK) = %d, want at least one per character (%d)", got, utf8.RuneCountInString(cjk))
	}
	if got, want := Estimate(strings.Repeat("abcd", 100)), 100; got != want {
		t.Errorf("Estimate(ASCII) = %d, want %d", got, want)
	}
}
