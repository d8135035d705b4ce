package tokens

import (
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding names clawdcode uses. Both are embedded in the binary.
const (
	O200kBase  = "o200k_base"
	Cl100kBase = "cl100k_base"
)

// EncodingFor maps a model name to its encoding with clawdcode's models
// table (see Lookup). The library's EncodingForModel is not used: it
// errors for o1/o3/o4/gpt-5.
func EncodingFor(model string) string { return Lookup(model).Encoding }

// lazyEncoding loads one encoding at most once per process.
type lazyEncoding struct {
	once   sync.Once
	loaded chan struct{} // closed when once has finished (the tests watch it)
	enc    *tiktoken.Tiktoken
	err    error
}

var (
	encodings = map[string]*lazyEncoding{
		O200kBase:  {loaded: make(chan struct{})},
		Cl100kBase: {loaded: make(chan struct{})},
	}
	// setLoader installs the offline loader before the first load. Doing it
	// here rather than in init keeps importing the package free, and the
	// library's loader variable is written once, before any reader.
	setLoader sync.Once
)

// encoding returns the named encoding, loading it on first use.
func encoding(name string) (*tiktoken.Tiktoken, error) {
	le, ok := encodings[name]
	if !ok {
		return nil, &UnknownEncodingError{Name: name}
	}
	le.once.Do(func() {
		defer close(le.loaded)
		setLoader.Do(func() { tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader()) })
		le.enc, le.err = tiktoken.GetEncoding(name)
	})
	return le.enc, le.err
}
