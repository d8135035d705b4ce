package llmtest

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// Token counting as OpenAI counts a chat request: tiktoken's o200k_base
// (gpt-4o's) over every text the request carries, with the cookbook's
// per-message overhead, and each tool definition counted as its JSON text
// (more than OpenAI's own accounting of tools, so a server with a window
// is if anything stricter). Options.Tokens = OpenAITokens makes the
// server's window as strict as the provider's.
var (
	encOnce sync.Once
	enc     *tiktoken.Tiktoken
	encErr  error
	// counted memoises TextTokens: every request repeats the system
	// prompt, the tools and the history, and tokenizing is slow.
	counted sync.Map // string → int
)

// TextTokens is the o200k_base token count of s.
func TextTokens(s string) int {
	encOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
		enc, encErr = tiktoken.GetEncoding("o200k_base")
	})
	if encErr != nil {
		panic(fmt.Sprintf("load o200k_base: %v", encErr))
	}
	if n, ok := counted.Load(s); ok {
		return n.(int)
	}
	n := len(enc.EncodeOrdinary(s))
	counted.Store(s, n)
	return n
}

// OpenAITokens is r's prompt as OpenAI counts it (see TextTokens), its
// images at OpenAI's rate (ImageTokens).
func OpenAITokens(r Request) int {
	count := TextTokens
	n := 3
	for _, m := range r.Messages {
		n += 3 + count(m.Role) + count(m.Content)
		if m.Name != "" {
			n += 1 + count(m.Name)
		}
		for _, c := range m.ToolCalls {
			n += 7 + count(c.Name) + count(c.Arguments)
		}
		for _, img := range m.Images {
			n += imagePartTokens(img)
		}
	}
	for _, d := range r.Tools {
		b, _ := json.Marshal(d)
		n += count(string(b))
	}
	return n
}
