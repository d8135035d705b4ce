package llmtest

import (
	"bytes"
	"encoding/json"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// promptCache is the prompt-cache meter of Options.PromptCache: for each
// model, the last request it accepted, as the parts a provider's prefix
// cache compares — the tool definitions, then each message — encoded.
type promptCache struct {
	prev map[string][][]byte
}

// parts are r's cacheable units in prefix order: the tool definitions as
// one unit, then each message.
func cacheParts(r Request) [][]byte {
	tools, _ := json.Marshal(r.Tools)
	parts := [][]byte{tools}
	for _, m := range r.Messages {
		b, _ := json.Marshal(m)
		parts = append(parts, b)
	}
	return parts
}

// cached is how many of r's prompt tokens the previous request of the same
// model would let a cache serve: the tokens of the longest run of leading
// parts (tools first, then messages, each compared whole) the two share.
// tokens counts a request. r becomes the model's previous request.
func (c *promptCache) cached(r Request, tokens func(Request) int) int {
	if c.prev == nil {
		c.prev = map[string][][]byte{}
	}
	parts := cacheParts(r)
	prev := c.prev[r.Model]
	c.prev[r.Model] = parts
	n := 0
	for n < len(parts) && n < len(prev) && bytes.Equal(parts[n], prev[n]) {
		n++
	}
	if n == 0 || (n == 1 && len(r.Tools) == 0) {
		return 0 // the tools differ, or no tools and no message are shared
	}
	prefix := Request{Model: r.Model, Tools: r.Tools, Messages: append([]chat.Message(nil), r.Messages[:n-1]...)}
	return min(tokens(prefix), r.Tokens)
}
