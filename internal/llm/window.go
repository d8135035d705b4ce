package llm

import (
	"errors"
	"regexp"
	"strconv"
)

// The windows clawdcode believes a server: below MinWindow nothing useful
// fits (it is also the context manager's floor for a learnt window), and
// no model has more than MaxWindow. A metadata endpoint stating a window
// outside (1, a byte count mistaken for tokens) is misconfigured, and
// believing it would stop every run or overflow every request.
const (
	MinWindow = 1024
	MaxWindow = 10_000_000
)

// PlausibleWindow reports whether a server's stated window n is one to
// believe (see MinWindow).
func PlausibleWindow(n int) bool { return n >= MinWindow && n <= MaxWindow }

// windowPatterns find the context window stated in the overflow messages
// of the servers clawdcode meets (OpenAI, OpenRouter, vLLM, llama.cpp and
// Ollama, Anthropic-style proxies). The first group is the window, prompt
// and completion together.
var windowPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)maximum context length is (\d+) tokens`),
	regexp.MustCompile(`(?i)context length is only (\d+) tokens`),
	regexp.MustCompile(`(?i)(?:available|max) context size \((\d+) tokens\)`),
	regexp.MustCompile(`(?i)tokens > (\d+) maximum`),
	regexp.MustCompile(`(?i)exceed context limit: [\d\s+]*> (\d+)`),
}

// StatedWindow returns the context window a server states in a
// context-overflow error ("This model's maximum context length is 9088
// tokens. …"), reading the server's own message when err carries one;
// ok is false when err states none.
func StatedWindow(err error) (tokens int, ok bool) {
	if err == nil {
		return 0, false
	}
	msg := err.Error()
	if le, isLLM := errors.AsType[*Error](err); isLLM && le.Message != "" {
		msg = le.Message
	}
	return statedWindow(msg)
}

func statedWindow(message string) (int, bool) {
	for _, re := range windowPatterns {
		sub := re.FindStringSubmatch(message)
		if sub == nil {
			continue
		}
		if n, err := strconv.Atoi(sub[1]); err == nil && n > 0 {
			return n, true
		}
	}
	return 0, false
}
