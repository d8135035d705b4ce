package ctxbench

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

var (
	encOnce sync.Once
	enc     *tiktoken.Tiktoken
	encErr  error
	counted sync.Map // string → int
)

// textTokens is the o200k_base token count of s, remembered: a long
// session sends the same messages again and again.
func textTokens(s string) int {
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

// requestTokens is the server's count of a request's prompt, as OpenAI
// counts chat messages (a few tokens of framing for each): the server's
// window is then as strict as the provider's.
func requestTokens(r llmtest.Request) int {
	n := 3
	for _, m := range r.Messages {
		n += 3 + textTokens(m.Role) + textTokens(m.Content)
		if m.Name != "" {
			n += 1 + textTokens(m.Name)
		}
		for _, c := range m.ToolCalls {
			n += 7 + textTokens(c.Name) + textTokens(c.Arguments)
		}
	}
	if len(r.Tools) > 0 {
		b, _ := json.Marshal(r.Tools)
		n += textTokens(string(b))
	}
	return n
}
