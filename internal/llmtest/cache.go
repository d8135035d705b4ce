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
	// conv is, for each model and tool definitions, the messages of the
	// last request accepted: the conversation a request with the same
	// tools continues (fresh).
	conv map[string][][]byte
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
// parts are cacheParts(r); tokens counts a request. r becomes the model's
// previous request.
func (c *promptCache) cached(r Request, parts [][]byte, tokens func(Request) int) int {
	if c.prev == nil {
		c.prev = map[string][][]byte{}
	}
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

// fresh is how many of r's prompt tokens no cache can have served, whatever
// the client did to its earlier messages: the messages at the end of r
// that the last request of the same model and tools (the conversation r
// continues; a summariser's request, offering no tools, is another) did
// not hold — the reply since, the tool results, the user's new words — or
// all of r when there was none. The rest of r a client that only ever
// appended would have had served, so 1 − Σ fresh / Σ Tokens bounds the
// cached share any context strategy reaches on a conversation. r becomes
// the conversation's last request. parts are cacheParts(r).
func (c *promptCache) fresh(r Request, parts [][]byte, tokens func(Request) int) int {
	if c.conv == nil {
		c.conv = map[string][][]byte{}
	}
	key := r.Model + "\x00" + string(parts[0])
	prev, ok := c.conv[key]
	c.conv[key] = parts
	if !ok {
		return r.Tokens
	}
	held := make(map[string]bool, len(prev))
	for _, p := range prev[1:] {
		held[string(p)] = true
	}
	k := len(parts) - 1 // r.Messages[k:] are new
	for k > 0 && !held[string(parts[k])] {
		k--
	}
	if k == 0 {
		return r.Tokens
	}
	old := Request{Model: r.Model, Tools: r.Tools, Messages: append([]chat.Message(nil), r.Messages[:k]...)}
	return max(r.Tokens-tokens(old), 0)
}
