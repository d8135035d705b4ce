package tokens

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// Chat accounting constants (OpenAI cookbook, num_tokens_from_messages).
const (
	TokensPerMessage = 3
	TokensPerName    = 1
	ReplyPriming     = 3
)

// ToolCallOverhead is what clawdcode charges per assistant tool call on top
// of the call's name and arguments. The cookbook gives no rule for tool
// calls; the server wraps each call in a recipient header and end markers,
// which is a handful of tokens. 7 matches the cookbook's per-function
// framing for o200k models and errs high rather than low, which is the safe
// side for a compaction trigger. The call ID is not charged: the model sees
// the call, not the ID.
const ToolCallOverhead = 7

// maxRun bounds how long a run of one character class is handed to
// tiktoken-go in one piece. Its merge is quadratic in the piece length: one
// 16 KB run of "=" takes ~180 ms and a 1 MB run would take minutes. Runs
// longer than this are counted in maxRun-byte slices (~1 ms each), which
// can differ from the exact count by about one token per slice; ordinary
// text and code never have such runs, so their counts stay exact.
const maxRun = 1024

// Counter counts tokens for one model. The encoding is loaded lazily on the
// first exact count, once per process (shared across Counters), offline.
// Safe for concurrent use.
type Counter struct {
	model    string
	encoding string
}

// NewCounter returns a Counter for model. It loads nothing.
func NewCounter(model string) *Counter {
	return &Counter{model: model, encoding: EncodingFor(model)}
}

// Model returns the model name the Counter was built for.
func (c *Counter) Model() string { return c.model }

// Encoding returns the name of the encoding the Counter uses.
func (c *Counter) Encoding() string { return c.encoding }

// Load loads the Counter's encoding now instead of at the first count, so a
// caller can warm it up off the critical path and see a load error. Loading
// cannot normally fail: the rank files are embedded.
func (c *Counter) Load() error {
	if _, err := encoding(c.encoding); err != nil {
		return fmt.Errorf("load encoding %s: %w", c.encoding, err)
	}
	return nil
}

// Text returns the exact token count of s as ordinary text (loads the
// encoding). Should the embedded encoding ever fail to load, it returns
// Estimate(s) rather than nothing; Load reports that error.
func (c *Counter) Text(s string) int { return c.sum([]string{s}) }

// sum is the total count of texts, counted in one go: the encoder learns
// the tokens of all of them at once (see encoder). Each text is cut where
// no pre-tokenizer piece can span the cut (see chunks), so the count is
// the same as in one piece, a long text is counted in parallel, and a
// chunk counted before (a line another message repeats) is not counted
// again.
func (c *Counter) sum(texts []string) int {
	var parts []string
	for _, s := range texts {
		for _, p := range chunks(s) {
			parts = appendRunSlices(parts, p)
		}
	}
	if len(parts) == 0 {
		return 0
	}
	enc, err := encoding(c.encoding)
	var counts []int
	if err == nil {
		counts, err = enc.counts(parts)
	}
	n := 0
	if err != nil {
		for _, s := range texts {
			n += Estimate(s)
		}
		return n
	}
	for _, k := range counts {
		n += k
	}
	return n
}

// chunks cuts s right after every '\n' that is followed by an ASCII
// letter or digit. No piece of the cl100k or o200k pre-tokenizer spans
// such a cut: a letter or digit piece never takes a preceding newline
// ([^\r\n\p{L}\p{N}]? is its only prefix), and a piece holding a newline
// continues only with whitespace, '\r', '\n' or (o200k) '/'. Nor does a
// long run (see maxRun), which every such cut ends. So the count of s is
// the sum of the counts of its chunks.
func chunks(s string) []string {
	var out []string
	start := 0
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			break
		}
		cut := i + j + 1
		if cut < len(s) && isASCIIWordByte(s[cut]) {
			out = append(out, s[start:cut])
			start = cut
		}
		i = cut
	}
	return append(out, s[start:])
}

// isASCIIWordByte reports whether c is an ASCII letter or digit.
func isASCIIWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// appendRunSlices appends s to parts, cut where a run of one character
// class reaches maxRun bytes (see maxRun); "" adds nothing.
func appendRunSlices(parts []string, s string) []string {
	// A piece of the pre-tokenizer is a run of letters, of whitespace, or
	// of punctuation with trailing newlines (and, in o200k, slashes): track
	// all three.
	start := 0
	letterFrom, spaceFrom, punctFrom := -1, -1, -1
	for i, r := range s {
		cls := classOf(r)
		letterFrom = extendRun(letterFrom, i, cls == classLetter)
		spaceFrom = extendRun(spaceFrom, i, cls == classSpace)
		punctFrom = extendRun(punctFrom, i, cls == classOther || r == '\n' || r == '\r')
		if longRun(letterFrom, i) || longRun(spaceFrom, i) || longRun(punctFrom, i) {
			parts = append(parts, s[start:i])
			start = i
			letterFrom, spaceFrom, punctFrom = restartRun(letterFrom, i), restartRun(spaceFrom, i), restartRun(punctFrom, i)
		}
	}
	if start < len(s) {
		parts = append(parts, s[start:])
	}
	return parts
}

// Message returns the tokens one message adds to a request: per-message
// overhead, role, content, name (+1), tool_call_id, and per tool call its
// name, arguments and ToolCallOverhead. The reply priming is not included.
//
// Every string field the message carries is charged, as the cookbook charges
// every value of the message object; tool_call_id is such a value.
func (c *Counter) Message(m chat.Message) int {
	n, texts := messageTexts(m, nil)
	return n + c.sum(texts)
}

// Messages returns the cookbook total for a request's messages, reply
// priming included.
func (c *Counter) Messages(ms []chat.Message) int {
	n, texts := ReplyPriming, []string(nil)
	for _, m := range ms {
		var k int
		k, texts = messageTexts(m, texts)
		n += k
	}
	return n + c.sum(texts)
}

// messageTexts appends the texts of m that are counted to texts, and
// returns the tokens m adds besides them.
func messageTexts(m chat.Message, texts []string) (int, []string) {
	n := TokensPerMessage
	texts = append(texts, m.Role, m.Content, m.ToolCallID)
	if m.Name != "" {
		n += TokensPerName
		texts = append(texts, m.Name)
	}
	for _, tc := range m.ToolCalls {
		n += ToolCallOverhead
		texts = append(texts, tc.Name, tc.Arguments)
	}
	return n, texts
}

// extendRun returns where the run containing position i started, or -1
// when the rune at i does not belong to the run.
func extendRun(from, i int, in bool) int {
	switch {
	case !in:
		return -1
	case from < 0:
		return i
	}
	return from
}

func longRun(from, i int) bool { return from >= 0 && i-from >= maxRun }

// restartRun moves a run's start to the cut at i.
func restartRun(from, i int) int {
	if from < 0 {
		return -1
	}
	return i
}

// Character classes for splitting over-long runs (see maxRun). They mirror
// the classes tiktoken's pre-tokenisation patterns group into one piece.
const (
	classLetter = iota
	classDigit
	classSpace
	classOther
)

func classOf(r rune) int {
	if r < utf8.RuneSelf {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
			return classLetter
		case '0' <= r && r <= '9':
			return classDigit
		case r == ' ', r == '\t', r == '\n', r == '\r', r == '\v', r == '\f':
			return classSpace
		}
		return classOther
	}
	switch {
	case unicode.IsLetter(r), unicode.IsMark(r):
		return classLetter
	case unicode.IsNumber(r):
		return classDigit
	case unicode.IsSpace(r):
		return classSpace
	}
	return classOther
}
