package llm

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// ErrReplyTooLong is wrapped by the *Error of an attempt abandoned because
// the reply went past its bound (replyBound): a server streaming without
// end would otherwise grow clawdcode's memory until the machine gives out.
// Such an attempt is not retried.
var ErrReplyTooLong = errors.New("reply too long")

const (
	// DefaultMaxReplyBytes bounds what one reply may stream (text,
	// tool-call names and arguments) when the request sets no max tokens:
	// far beyond any real reply (128k output tokens are about 0.5 MB; a
	// Write of a large file a few MB), far below what would hurt.
	DefaultMaxReplyBytes = 16 << 20
	// bytesPerTokenBound is the margin on a requested max tokens: no real
	// token is longer than this many bytes of text.
	bytesPerTokenBound = 32
	// minReplyBytes keeps a small max tokens from cutting a reply whose
	// tool-call framing alone is larger.
	minReplyBytes = 64 << 10
	// DefaultMaxReplyTime bounds how long one attempt may stream, however
	// steadily the bytes come: a slow, endless drip never trips the idle
	// timeout.
	DefaultMaxReplyTime = 30 * time.Minute
	// chunkSlack is how many chunks a reply may have beyond one per byte
	// (role, finish and usage chunks carry no text).
	chunkSlack = 64
)

// replyBound is what one attempt may receive.
type replyBound struct {
	bytes     int // text and tool-call bytes
	maxTokens int // as requested, for the message; 0 = not set
}

// boundFor is the bound of a reply to a request for maxTokens (0 = not
// set), within the client's cap.
func boundFor(maxTokens, capBytes int) replyBound {
	b := replyBound{bytes: capBytes, maxTokens: maxTokens}
	if maxTokens > 0 {
		b.bytes = min(capBytes, max(minReplyBytes, maxTokens*bytesPerTokenBound))
	}
	return b
}

// check fails an attempt that has received size bytes in chunks chunks.
// A chunk carries at least one byte of the reply, apart from a few: a
// stream of chunks that carry nothing is as runaway as one that carries
// too much.
func (b replyBound) check(size, chunks int) *Error {
	if size <= b.bytes && chunks <= b.bytes+chunkSlack {
		return nil
	}
	msg := fmt.Sprintf("the server streamed more than %d MB without ending the reply", b.bytes>>20)
	if b.bytes < 1<<20 {
		msg = fmt.Sprintf("the server streamed more than %d KB without ending the reply", b.bytes>>10)
	}
	if b.maxTokens > 0 {
		msg += fmt.Sprintf(" (max %d tokens were asked for)", b.maxTokens)
	}
	return &Error{Kind: KindServer, Message: msg + "; the attempt was abandoned", Err: ErrReplyTooLong}
}

// overtime fails an attempt that streamed for longer than d.
func overtime(d time.Duration) *Error {
	return &Error{Kind: KindServer, Message: fmt.Sprintf("the reply was still streaming after %v; the attempt was abandoned", d), Err: ErrReplyTooLong}
}

// attemptClock ends an attempt after the longest time a reply may take:
// cancel is called and expired says so.
type attemptClock struct {
	timer   *time.Timer
	expired atomic.Bool
}

func startClock(d time.Duration, cancel func()) *attemptClock {
	c := &attemptClock{}
	c.timer = time.AfterFunc(d, func() {
		c.expired.Store(true)
		cancel()
	})
	return c
}

func (c *attemptClock) stop() { c.timer.Stop() }
