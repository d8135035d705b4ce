package tokens

import "strings"

// FallbackWindow is the context window of a model the table does not know
// (the contract's default).
const FallbackWindow = 128000

// Model is what clawdcode knows of a model: the tokenizer encoding it
// counts with and its context window in tokens.
type Model struct {
	Encoding string
	Window   int
	// Known is false for a model the table does not list: Encoding and
	// Window are then the fallbacks (o200k_base, FallbackWindow).
	Known bool
}

// models is clawdcode's one models table: name prefix → encoding and
// window, as the providers publish them. The longest matching prefix wins,
// so "gpt-4o" beats "gpt-4" and "o1-mini" beats "o1". A prefix ending in
// "-" is also matched by the bare name ("o1-" matches "o1" and "o1-mini"
// but not "o1x"). Local servers (Ollama, llama.cpp) choose their window at
// load time, so their models are deliberately absent: the user passes
// --context-window.
var models = []struct {
	prefix string
	Model
}{
	{"gpt-5", Model{O200kBase, 400000, true}},
	{"gpt-4.1", Model{O200kBase, 1047576, true}},
	{"gpt-4.5", Model{O200kBase, 128000, true}},
	{"gpt-4o", Model{O200kBase, 128000, true}},
	{"chatgpt-4o", Model{O200kBase, 128000, true}},
	{"gpt-4-turbo", Model{Cl100kBase, 128000, true}},
	{"gpt-4-1106", Model{Cl100kBase, 128000, true}},
	{"gpt-4-0125", Model{Cl100kBase, 128000, true}},
	{"gpt-4-32k", Model{Cl100kBase, 32768, true}},
	{"gpt-4", Model{Cl100kBase, 8192, true}},
	{"gpt-3.5-turbo-instruct", Model{Cl100kBase, 4096, true}},
	{"gpt-3.5-turbo", Model{Cl100kBase, 16385, true}},
	{"gpt-3.5", Model{Cl100kBase, 16385, true}},
	{"gpt-35-turbo", Model{Cl100kBase, 16385, true}}, // Azure's spelling
	{"gpt-35", Model{Cl100kBase, 16385, true}},
	{"text-embedding-", Model{Cl100kBase, 8191, true}},
	{"o1-mini", Model{O200kBase, 128000, true}},
	{"o1-preview", Model{O200kBase, 128000, true}},
	{"o1-", Model{O200kBase, 200000, true}},
	{"o3-mini", Model{O200kBase, 200000, true}},
	{"o3-", Model{O200kBase, 200000, true}},
	{"o4-mini", Model{O200kBase, 200000, true}},
	{"o4-", Model{O200kBase, 200000, true}},
}

// Lookup returns what the table says of model. A provider prefix
// ("openai/gpt-4o" on OpenRouter) and case are ignored. Unknown models
// (Llama, Qwen, Mistral behind Ollama or vLLM, …) use their own
// tokenizers, which clawdcode cannot load; o200k_base is the estimate
// because its large vocabulary lands near most modern tokenizers, and the
// context manager calibrates against the server's prompt_tokens anyway.
func Lookup(model string) Model {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	best, found := 0, Model{Encoding: O200kBase, Window: FallbackWindow}
	for _, k := range models {
		match := strings.HasPrefix(name, k.prefix) ||
			(strings.HasSuffix(k.prefix, "-") && name == strings.TrimSuffix(k.prefix, "-"))
		if match && len(k.prefix) > best {
			best, found = len(k.prefix), k.Model
		}
	}
	return found
}

// WindowFor is the context window of model by the table, else
// FallbackWindow.
func WindowFor(model string) int { return Lookup(model).Window }
