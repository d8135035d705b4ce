package tokens

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

// asciiAlphabet weighs the characters the pattern tells apart: capitals,
// small letters, digits, every kind of whitespace, apostrophes (the
// contractions), slashes, other punctuation and control characters.
const asciiAlphabet = "aAbZzsStTrReEvVmMlLdD019  \t\t\n\n\r\v\f''''//.,;:!?-_(){}[]<>\"#$%&*+=@\\^`|~\x00\x01\x1b\x1c\x1f\x7f"

func patternPiecesOf(e *bpeEncoding, s string) []string {
	var out []string
	e.patternPieces(s, func(p []byte) { out = append(out, string(p)) })
	return out
}

// checkCut fails when cut cuts s into other pieces than the pattern.
func checkCut(t *testing.T, e *bpeEncoding, s string, cut func(string, func([]byte))) {
	t.Helper()
	var got []string
	cut(s, func(p []byte) { got = append(got, string(p)) })
	if want := patternPiecesOf(e, s); strings.Join(want, "\x00|") != strings.Join(got, "\x00|") {
		t.Errorf("%q: the pattern cuts %q, by hand %q", s, want, got)
	}
}

func checkASCIIPieces(t *testing.T, e *bpeEncoding, s string) {
	t.Helper()
	checkCut(t, e, s, simplePieces)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// TestASCIIPiecesAreThePatterns: over ASCII text the hand-cut pieces are
// the ones o200k's pattern cuts with regexp2 — every character alone and
// after every other, and random texts weighted toward what the pattern
// tells apart.
func TestASCIIPiecesAreThePatterns(t *testing.T) {
	t.Parallel()
	e, err := encoding(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for c := 0; c < 0x80; c++ {
		for d := 0; d < 0x80; d++ {
			checkASCIIPieces(t, e, string([]byte{byte(c), byte(d), 'x'}))
			checkASCIIPieces(t, e, string([]byte{' ', byte(c), byte(d)}))
		}
	}
	r := rand.New(rand.NewPCG(7, 11))
	for range 20000 {
		b := make([]byte, 1+r.IntN(24))
		for i := range b {
			b[i] = asciiAlphabet[r.IntN(len(asciiAlphabet))]
		}
		checkASCIIPieces(t, e, string(b))
	}
	for _, s := range []string{"", "HELLO's world", "don't", "I'LL", "we've", "a  b", "x \n\n  y", "  ", "\r\n", "1234567", " 123", "...hello", "path/to/file.go\n", "    return x\n}\n"} {
		checkASCIIPieces(t, e, s)
	}
}

// FuzzASCIIPiecesAreThePatterns holds the two cuts together on any ASCII.
func FuzzASCIIPiecesAreThePatterns(f *testing.F) {
	for _, s := range []string{"HELLO's world", "a  b\n\n c", "x := y // 42\r\n"} {
		f.Add(s)
	}
	e, err := encoding(O200kBase)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !isASCII(s) {
			return
		}
		checkASCIIPieces(t, e, s)
	})
}

// TestSimplePiecesAreThePatterns: every rune of punctuation or symbols
// (Unicode's P and S) is cut by hand as the pattern cuts it — alone,
// before a word, after a word, after a space, doubled, around a line
// break — and so are random texts of ASCII mixed with them.
func TestSimplePiecesAreThePatterns(t *testing.T) {
	t.Parallel()
	e, err := encoding(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	var runes []string
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if unicode.In(r, unicode.P, unicode.S) {
			runes = append(runes, string(r))
		}
	}
	if len(runes) < 1000 {
		t.Fatalf("only %d runes of P and S", len(runes))
	}
	stride := 1
	if raceDetector {
		stride = 7
	}
	for i := 0; i < len(runes); i += stride {
		p := runes[i]
		for _, s := range []string{p, p + "word", "a" + p + "b", "x " + p + "Y's", p + p + "\n/z", "word" + p + "\r\n", " " + p + "12"} {
			if _, rest := simpleStretch(s); rest != "" {
				t.Fatalf("%q is not taken for simple text", s)
			}
			checkPieces(t, e, s)
		}
	}
	simple := append([]string{"—", "–", "…", "“", "”", "‘", "’", "→", "•", "€", "©", "😀", "│", "✓"}, strings.Split(asciiAlphabet, "")...)
	r := rand.New(rand.NewPCG(19, 23))
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(24) {
			b.WriteString(simple[r.IntN(len(simple))])
		}
		checkCut(t, e, b.String(), simplePieces)
	}
}

// mixedAlphabet adds what is not ASCII — letters that fold to ASCII ones
// (ſ, K), accented and other scripts' letters, marks, digits, spaces,
// punctuation, an emoji and bytes that are not UTF-8 — to asciiAlphabet.
var mixedAlphabet = append([]string{"ſ", "K", "é", "É", "ß", "д", "中", "\u0301", "٣", "\u00a0", "\u2003", "—", "…", "😀", "\xff", "\xc3"},
	strings.Split(asciiAlphabet+"aaaaeeettt\n\n\n", "")...)

func checkPieces(t *testing.T, e *bpeEncoding, s string) {
	t.Helper()
	checkCut(t, e, s, e.pieces)
}

// TestPiecesOfMixedTextAreThePatterns: text with some characters that
// are not ASCII is cut by hand but for the lines around them, and the
// pieces are still the pattern's.
func TestPiecesOfMixedTextAreThePatterns(t *testing.T) {
	t.Parallel()
	e, err := encoding(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(13, 17))
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(40) {
			b.WriteString(mixedAlphabet[r.IntN(len(mixedAlphabet))])
		}
		checkPieces(t, e, b.String())
	}
	for _, s := range []string{"café\nlatte", "x\n—\ny", "a\nſ's\nb", "line one\nline two é\nline three\n", "\n\xff\nz"} {
		checkPieces(t, e, s)
	}
}

// FuzzPiecesAreThePatterns holds the mixed cut to the pattern's on any
// text.
func FuzzPiecesAreThePatterns(f *testing.F) {
	for _, s := range []string{"café\nlatte", "x := y // 42\r\nz — w\nok"} {
		f.Add(s)
	}
	e, err := encoding(O200kBase)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) { checkPieces(t, e, s) })
}
