package tokens

import (
	_ "embed"
	"sync"
)

// Encoding names clawdcode uses. Both are embedded in the binary.
const (
	O200kBase  = "o200k_base"
	Cl100kBase = "cl100k_base"
)

// The rank tables (see bpetable.go). Strings, so they stay in the binary's
// read-only data where the linker put them: nothing is copied to the heap.
var (
	//go:embed bpedata/o200k_base.ranks
	o200kTable string
	//go:embed bpedata/cl100k_base.ranks
	cl100kTable string
)

// EncodingFor maps a model name to its encoding with clawdcode's models
// table (see Lookup). tiktoken-go's EncodingForModel is not used: it
// errors for o1/o3/o4/gpt-5.
func EncodingFor(model string) string { return Lookup(model).Encoding }

// lazyEncoding opens one encoding at most once per process.
type lazyEncoding struct {
	once    sync.Once
	loaded  chan struct{} // closed when once has finished (the tests watch it)
	table   *string
	pattern *string
	special map[string]int
	enc     *bpeEncoding
	err     error
}

var encodings = map[string]*lazyEncoding{
	O200kBase:  {loaded: make(chan struct{}), table: &o200kTable, pattern: &o200kPattern, special: o200kSpecial},
	Cl100kBase: {loaded: make(chan struct{}), table: &cl100kTable, pattern: &cl100kPattern, special: cl100kSpecial},
}

// encoding returns the named encoding, opening it on first use.
func encoding(name string) (*bpeEncoding, error) {
	le, ok := encodings[name]
	if !ok {
		return nil, &UnknownEncodingError{Name: name}
	}
	le.once.Do(func() {
		defer close(le.loaded)
		le.enc, le.err = newBPEEncoding(*le.table, *le.pattern, le.special)
	})
	return le.enc, le.err
}
