package tokens

import (
	"strings"
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
)

// Encoding names clawdcode uses. Both are embedded in the binary.
const (
	O200kBase  = tiktoken.MODEL_O200K_BASE
	Cl100kBase = tiktoken.MODEL_CL100K_BASE
)

// tiktoken-go downloads an encoding's rank file by default; its BpeLoader
// hook is pointed, before anything can ask for an encoding, at the copies
// tiktoken-go-loader embeds in the binary (embeddedRanks).
func init() { tiktoken.SetBpeLoader(embeddedRanks{}) }

// patterns are the pre-tokenizer patterns of tiktoken-go v0.1.8
// (encoding.go), which the library keeps to itself; the encoder learns
// the tokens of a text's pieces by them (see encoder). A test reads the
// library's own from a loaded encoding and compares.
var patterns = map[string]string{
	O200kBase: strings.Join([]string{
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`\p{N}{1,3}`,
		` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
		`\s*[\r\n]+`,
		`\s+(?!\S)`,
		`\s+`,
	}, "|"),
	Cl100kBase: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
}

// splitPattern is pattern (one of patterns) as the encoder cuts texts by
// it with regexp2's v2 engine, ~3.5 times as fast as the v1 engine
// tiktoken-go runs it with (which looks each Unicode category up by name,
// in a map, for every character it tests). The engines differ in one
// place the patterns reach: case-insensitive matching, which v1 does by
// unicode.ToLower and v2 by case folding (so v2 takes "'ſ" for "'s").
// The contractions are therefore spelled with the letters v1 accepts for
// them, each ASCII letter in its two cases (TestSplitPatternsCutAsTiktoken
// checks every rune both ways, and that no other rune lowers to them);
// everything else is the library's pattern as it is.
func splitPattern(pattern string) string {
	return strings.ReplaceAll(pattern, `(?i:'s|'t|'re|'ve|'m|'ll|'d)`, `(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])`)
}

// EncodingFor maps a model name to its encoding with clawdcode's models
// table (see Lookup). tiktoken-go's EncodingForModel is not used: it
// errors for o1/o3/o4/gpt-5.
func EncodingFor(model string) string { return Lookup(model).Encoding }

// lazyEncoding opens one encoding at most once per process.
type lazyEncoding struct {
	once   sync.Once
	loaded chan struct{} // closed when once has finished (the tests watch it)
	enc    *encoder
	err    error
}

var encodings = map[string]*lazyEncoding{
	O200kBase:  {loaded: make(chan struct{})},
	Cl100kBase: {loaded: make(chan struct{})},
}

// encoding returns the named encoding, opening it on first use.
func encoding(name string) (*encoder, error) {
	le, ok := encodings[name]
	if !ok {
		return nil, &UnknownEncodingError{Name: name}
	}
	le.once.Do(func() {
		defer close(le.loaded)
		le.enc, le.err = newEncoder(name)
	})
	return le.enc, le.err
}
