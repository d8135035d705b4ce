package tokens

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// tiktoken-go, loaded from tiktoken-go-loader's files, is the reference
// the embedded tables and the encoder are checked against.
var (
	referenceOnce sync.Once
	reference     map[string]*tiktoken.Tiktoken
	referenceErr  error
)

func referenceEncoding(t testing.TB, name string) *tiktoken.Tiktoken {
	t.Helper()
	referenceOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
		reference = map[string]*tiktoken.Tiktoken{}
		for _, n := range []string{O200kBase, Cl100kBase} {
			if reference[n], referenceErr = tiktoken.GetEncoding(n); referenceErr != nil {
				return
			}
		}
	})
	if referenceErr != nil {
		t.Fatal(referenceErr)
	}
	return reference[name]
}

// TestPatternIsTiktokens: the pre-tokenizer is the library's own pattern,
// read from the loaded encoding.
func TestPatternIsTiktokens(t *testing.T) {
	t.Parallel()
	for name, le := range encodings {
		ref := reflect.ValueOf(referenceEncoding(t, name)).Elem().FieldByName("pbeEncoding").Elem()
		if got := ref.FieldByName("PatStr").String(); got != *le.pattern {
			t.Errorf("%s: pattern differs from tiktoken-go's:\n got %s\nwant %s", name, *le.pattern, got)
		}
		special := ref.FieldByName("SpecialTokens")
		if special.Len() != len(le.special) {
			t.Errorf("%s: %d special tokens, tiktoken-go has %d", name, len(le.special), special.Len())
		}
		for k, v := range le.special {
			if r := special.MapIndex(reflect.ValueOf(k)); !r.IsValid() || int(r.Int()) != v {
				t.Errorf("%s: special %s = %d, tiktoken-go says %v", name, k, v, r)
			}
		}
	}
}

// TestTableHoldsTiktokensRanks: every token of the reference looks up to
// its rank, and strings that are no token (every token with a byte added
// or dropped, when that is no token either) look up to none.
func TestTableHoldsTiktokensRanks(t *testing.T) {
	t.Parallel()
	for name := range encodings {
		enc, err := encoding(name)
		if err != nil {
			t.Fatal(err)
		}
		ref := referenceEncoding(t, name)
		ranks := map[string]int{}
		for it := reflect.ValueOf(ref).Elem().FieldByName("pbeEncoding").Elem().FieldByName("MergeableRanks").MapRange(); it.Next(); {
			ranks[it.Key().String()] = int(it.Value().Int())
		}
		if len(ranks) != enc.ranks.n {
			t.Fatalf("%s: table has %d ranks, tiktoken-go %d", name, enc.ranks.n, len(ranks))
		}
		stride := 1
		if raceDetector {
			stride = 97 // a sample: the loop is sequential, nothing for the detector
		}
		i, misses := 0, 0
		for tok, r := range ranks {
			if i++; i%stride != 0 {
				continue
			}
			if got := enc.ranks.rank([]byte(tok)); got != r {
				t.Fatalf("%s: %q looks up to %d, want %d", name, tok, got, r)
			}
			for _, s := range []string{tok + "\x00", tok + "q", "\xff" + tok, tok[1:]} {
				if _, ok := ranks[s]; ok {
					continue
				}
				misses++
				if got := enc.ranks.rank([]byte(s)); got >= 0 {
					t.Fatalf("%s: %q is no token but looks up to %d", name, s, got)
				}
			}
		}
		t.Logf("%s: %d tokens found, %d strings that are none not found", name, i/stride, misses)
	}
}

// TestEncodeMatchesTiktoken: the same tokens as tiktoken-go's
// EncodeOrdinary on the fixtures' texts and on random text of every kind.
func TestEncodeMatchesTiktoken(t *testing.T) {
	t.Parallel()
	var texts []string
	for _, v := range tokenVectors(t) {
		texts = append(texts, v.Text)
	}
	for _, s := range corpusSamples(t) {
		texts = append(texts, s.Text)
	}
	rng := rand.New(rand.NewPCG(22, 2026))
	n := 300
	if raceDetector {
		n = 30
	}
	for range n {
		texts = append(texts, randomText(rng, 1+rng.IntN(600)))
	}
	for _, name := range []string{O200kBase, Cl100kBase} {
		enc, err := encoding(name)
		if err != nil {
			t.Fatal(err)
		}
		ref := referenceEncoding(t, name)
		for _, s := range texts {
			want := ref.EncodeOrdinary(s)
			if got := enc.EncodeOrdinary(s); !slices.Equal(got, want) {
				t.Fatalf("%s: EncodeOrdinary(%.80q)\n got %v\nwant %v", name, s, got, want)
			}
			if got := enc.count(s); got != len(want) {
				t.Fatalf("%s: count(%.80q) = %d, tiktoken-go %d", name, s, got, len(want))
			}
		}
	}
}

// FuzzEncodeMatchesTiktoken: any bytes, invalid UTF-8 included, encode as
// tiktoken-go encodes them.
func FuzzEncodeMatchesTiktoken(f *testing.F) {
	for _, s := range []string{"", "hello world", "\xff\xfe bad utf8 \xc3", "   \n\n\t\t  x", "日本語のテキスト", "👩‍💻🚀 emoji", "func f() {\n\treturn\n}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, name := range []string{O200kBase, Cl100kBase} {
			enc, err := encoding(name)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := enc.EncodeOrdinary(s), referenceEncoding(t, name).EncodeOrdinary(s); !slices.Equal(got, want) {
				t.Fatalf("%s: EncodeOrdinary(%q)\n got %v\nwant %v", name, s, got, want)
			}
		}
	})
}

// randomText mixes the kinds of text a session holds: prose, code, CJK,
// emoji (joined and with modifiers), accents, digits, long whitespace and
// punctuation runs, contractions, and the odd invalid byte.
func randomText(rng *rand.Rand, n int) string {
	kinds := []func() string{
		func() string {
			return []string{"the ", "The ", "quick ", "isn't ", "WE'LL ", "they're ", "naïve ", "Ärger "}[rng.IntN(8)]
		},
		func() string {
			return []string{"func main() {\n", "\treturn err\n", "}\n", "if x != nil && y[i] >= 0x1F {", "// comment\n", "a := b.c(d, e)", "<div class=\"x\">", "import os\n"}[rng.IntN(8)]
		},
		func() string {
			return []string{"日本語", "中文文本", "한국어", "テキスト", "。", "，"}[rng.IntN(6)]
		},
		func() string {
			return []string{"😀", "👩‍💻", "👍🏽", "🇫🇷", "🚀", "❤️"}[rng.IntN(6)]
		},
		func() string { return strings.Repeat(" ", rng.IntN(80)) },
		func() string { return strings.Repeat([]string{"\n", "\r\n", "\t", " \n"}[rng.IntN(4)], 1+rng.IntN(20)) },
		func() string {
			return strings.Repeat([]string{"=", "-", "*", "/", "#", "."}[rng.IntN(6)], 1+rng.IntN(60))
		},
		func() string { return []string{"12345678", "3.14159", "1,000,000", "٣٤٥", "Ⅻ"}[rng.IntN(5)] },
		func() string { return string([]byte{byte(0x80 + rng.IntN(0x80))}) },
		func() string { return string(rune(0x20 + rng.IntN(0x3000))) },
	}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(kinds[rng.IntN(len(kinds))]())
	}
	return b.String()
}
