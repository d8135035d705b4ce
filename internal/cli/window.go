package cli

import "strings"

// fallbackWindow is the contract's context window for a model the table
// does not know.
const fallbackWindow = 128000

// knownWindows maps model-name prefixes to context windows in tokens, as the
// providers publish them. The longest matching prefix wins, so "gpt-4o"
// beats "gpt-4" and "o1-mini" beats "o1". Local servers (Ollama, llama.cpp)
// choose their window at load time, so their models are deliberately absent:
// the user passes --context-window.
var knownWindows = []struct {
	prefix string
	window int
}{
	{"gpt-5", 400000},
	{"gpt-4.1", 1047576},
	{"gpt-4.5", 128000},
	{"gpt-4o", 128000},
	{"chatgpt-4o", 128000},
	{"gpt-4-turbo", 128000},
	{"gpt-4-1106", 128000},
	{"gpt-4-0125", 128000},
	{"gpt-4-32k", 32768},
	{"gpt-4", 8192},
	{"gpt-3.5-turbo-instruct", 4096},
	{"gpt-3.5-turbo", 16385},
	{"o1-mini", 128000},
	{"o1-preview", 128000},
	{"o1", 200000},
	{"o3-mini", 200000},
	{"o3", 200000},
	{"o4-mini", 200000},
}

// DefaultWindow returns the context window of a known model, else 128000.
// A provider prefix such as OpenRouter's "openai/gpt-4o" is ignored.
func DefaultWindow(model string) int {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	best, window := 0, fallbackWindow
	for _, k := range knownWindows {
		if len(k.prefix) > best && strings.HasPrefix(name, k.prefix) {
			best, window = len(k.prefix), k.window
		}
	}
	return window
}
