package tokens

import (
	"strings"
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding names clawdcode uses. Both are embedded in the binary.
const (
	O200kBase  = "o200k_base"
	Cl100kBase = "cl100k_base"
)

// EncodingFor maps a model name to its encoding with clawdcode's own table.
// The library's EncodingForModel is not used: it errors for o1/o3/o4/gpt-5.
//
//	gpt-4o*, chatgpt-4o*, gpt-4.1*, gpt-4.5*, o1*, o3*, o4*, gpt-5*  → o200k_base
//	gpt-4*, gpt-3.5*, gpt-35* (Azure spelling), text-embedding-*       → cl100k_base
//	anything else                                                      → o200k_base
//
// Unknown models (Llama, Qwen, Mistral behind Ollama or vLLM, …) use their
// own tokenizers, which clawdcode cannot load; o200k_base is the estimate
// because its large vocabulary lands near most modern tokenizers, and the
// context manager calibrates against the server's prompt_tokens anyway.
// A provider prefix ("openai/gpt-4o" on OpenRouter) and case are ignored.
func EncodingFor(model string) string {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	for _, p := range []string{"gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5"} {
		if strings.HasPrefix(name, p) {
			return O200kBase
		}
	}
	for _, p := range []string{"o1", "o3", "o4"} {
		if name == p || strings.HasPrefix(name, p+"-") {
			return O200kBase
		}
	}
	for _, p := range []string{"gpt-4", "gpt-3.5", "gpt-35", "text-embedding-"} {
		if strings.HasPrefix(name, p) {
			return Cl100kBase
		}
	}
	return O200kBase
}

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
