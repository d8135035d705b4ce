package tokens

import (
	"errors"
	"maps"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// The reference is tiktoken-go's own encoding, as tiktoken.GetEncoding
// builds it (the whole rank map) through the BpeLoader hook.
var (
	referenceOnce sync.Once
	reference     map[string]*tiktoken.Tiktoken
	referenceErr  error
)

func referenceEncoding(t testing.TB, name string) *tiktoken.Tiktoken {
	t.Helper()
	referenceOnce.Do(func() {
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

// TestEmbeddedRanksAreTheLoaders: the BpeLoader clawdcode installs reads
// tiktoken-go-loader's files into the very map its own loader makes.
func TestEmbeddedRanksAreTheLoaders(t *testing.T) {
	t.Parallel()
	for _, name := range []string{O200kBase, Cl100kBase} {
		file := "https://openaipublic.blob.core.windows.net/encodings/" + name + ".tiktoken"
		want, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe(file)
		if err != nil {
			t.Fatal(err)
		}
		got, err := embeddedRanks{}.LoadTiktokenBpe(file)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || !maps.Equal(got, want) {
			t.Fatalf("%s: %d ranks, tiktoken-go-loader has %d, or they differ", name, len(got), len(want))
		}
		var wanted []string
		longest := 0
		for tok := range want {
			wanted = append(wanted, tok)
			longest = max(longest, len(tok))
		}
		if longest > longestToken {
			t.Errorf("%s: a token of %d bytes, longer than longestToken", name, longest)
		}
		// A pass that looks for every token finds each, with its rank: every
		// line's base64 is the standard encoding find compares with.
		f, err := openRankFile(name + ".tiktoken")
		if err != nil {
			t.Fatal(err)
		}
		if found, err := f.find(wanted); err != nil || !maps.Equal(found, want) {
			t.Fatalf("%s: find finds %d of %d tokens (%v), or other ranks", name, len(found), len(want), err)
		}
	}
}

// TestPatternsAreTiktokens: the encoder learns a text's tokens by the
// library's own pre-tokenizer pattern, read from its loaded encoding.
func TestPatternsAreTiktokens(t *testing.T) {
	t.Parallel()
	for name, pattern := range patterns {
		ref := reflect.ValueOf(referenceEncoding(t, name)).Elem().FieldByName("pbeEncoding").Elem()
		if got := ref.FieldByName("PatStr").String(); got != pattern {
			t.Errorf("%s: pattern differs from tiktoken-go's:\n got %s\nwant %s", name, pattern, got)
		}
	}
}

// TestTextMatchesTiktoken: Text, which hands tiktoken-go only the ranks a
// text can use (see encoder) and long texts in parallel parts, counts what
// tiktoken-go's own encoding gives for the whole text: on the fixtures'
// texts, on random text of every kind, and on long texts that are split,
// one after another in one process, as the encoder's ranks grow.
func TestTextMatchesTiktoken(t *testing.T) {
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
	for range 4 {
		texts = append(texts, randomLines(rng, 2*parallelPart+rng.IntN(4*parallelPart)))
	}
	for _, name := range []string{O200kBase, Cl100kBase} {
		ref := referenceEncoding(t, name)
		c := NewCounter(modelFor(t, name))
		for _, s := range texts {
			if got, want := c.Text(s), len(ref.EncodeOrdinary(s)); got != want {
				t.Fatalf("%s: Text(%.80q) = %d, tiktoken-go %d", name, s, got, want)
			}
		}
	}
}

// FuzzTextMatchesTiktoken: any bytes, invalid UTF-8 included, count as
// tiktoken-go counts them.
func FuzzTextMatchesTiktoken(f *testing.F) {
	for _, s := range []string{"", "hello world", "\xff\xfe bad utf8 \xc3", "   \n\n\t\t  x", "日本語のテキスト", "👩‍💻🚀 emoji", "func f() {\n\treturn\n}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) >= maxRun {
			t.Skip("a run this long may be counted in slices (see maxRun)")
		}
		for _, name := range []string{O200kBase, Cl100kBase} {
			want := len(referenceEncoding(t, name).EncodeOrdinary(s))
			if got := NewCounter(modelFor(t, name)).Text(s); got != want {
				t.Fatalf("%s: Text(%q) = %d, tiktoken-go %d", name, s, got, want)
			}
		}
	})
}

// randomLines is about n bytes of lines of random text, long enough for
// Text to count in parallel parts.
func randomLines(rng *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(randomText(rng, 1+rng.IntN(120)))
		b.WriteString([]string{"\n", "\nfunc x", "\n\t", "\nA"}[rng.IntN(4)])
	}
	return b.String()
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

// TestEncoderCountsExactlyWhileItLearns: a fresh encoder, counting from
// four goroutines at once different texts, in batches and one by one,
// gets tiktoken-go's count for each, whichever goroutine learnt a token.
func TestEncoderCountsExactlyWhileItLearns(t *testing.T) {
	t.Parallel()
	ref := referenceEncoding(t, O200kBase)
	rng := rand.New(rand.NewPCG(7, 39))
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = randomText(rng, 1+rng.IntN(2000))
	}
	e, err := newEncoder(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			var mine []string
			for i := g; i < len(texts); i += 4 {
				mine = append(mine, texts[i])
			}
			got, err := e.counts(mine[:len(mine)/2])
			for _, s := range mine[len(mine)/2:] {
				n, err2 := e.counts([]string{s})
				got, err = append(got, n...), errors.Join(err, err2)
			}
			if err != nil {
				t.Error(err)
				return
			}
			for i, s := range mine {
				if want := len(ref.EncodeOrdinary(s)); got[i] != want {
					t.Errorf("count(%.40q) = %d, tiktoken-go %d", s, got[i], want)
				}
			}
		})
	}
	wg.Wait()
}
