package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"slices"

	openai "github.com/sashabaranov/go-openai"
)

// body is a request's JSON body kept as the pieces it was marshalled in,
// never joined into one buffer. A long conversation's request is a
// megabyte or more (a resumed session's live context); json.Marshal of it
// grows a buffer to that size by doubling, copies each message's own
// marshalling into it after a second scan, and copies the whole once more
// at the end. Kept in pieces, the body costs what go-openai's marshalling
// of each message costs, and no more memory than those pieces.
//
// A body is never changed once made, so any number of readers may read it:
// each attempt of a request and each resend the HTTP client asks for
// (http.Request.GetBody, when a reused connection turns out closed) reads
// it again from the start.
type body struct {
	pieces [][]byte
	size   int64
}

// wholeBody is a body already marshalled in one piece.
func wholeBody(b []byte) *body { return &body{pieces: [][]byte{b}, size: int64(len(b))} }

// reader reads the body from its start.
func (b *body) reader() io.ReadCloser {
	bufs := net.Buffers(slices.Clone(b.pieces))
	return io.NopCloser(&bufs)
}

// The JSON that stands between go-openai's pieces of a chat request.
var (
	nilMessages  = []byte(`"messages":null`)
	openMessages = []byte(`"messages":[`)
	comma        = []byte{','}
	closeArray   = []byte{']'}
)

// chatBody is json.Marshal(oreq), byte for byte, marshalled by go-openai:
// the request without its messages by json.Marshal of go-openai's type
// (every field, in its order; the messages stand there as null), and
// each message by its own MarshalJSON, which is what json.Marshal calls
// for it. The pieces are laid where the null stood. Nothing else is
// written: json.Marshal's only work on top of that, a scan that compacts
// and escapes what MarshalJSON returned, finds nothing to change in what
// json.Marshal itself wrote (TestChatBodyIsJSONMarshal and
// FuzzChatBodyIsJSONMarshal hold the two to the same bytes).
func chatBody(oreq openai.ChatCompletionRequest) (*body, error) {
	msgs := oreq.Messages
	oreq.Messages = nil
	head, err := json.Marshal(oreq)
	if err != nil {
		return nil, err
	}
	if msgs == nil {
		return wholeBody(head), nil
	}
	// The first `"messages":null` with its quotes bare is the key: only
	// "model", a string, comes before it, and a string's quotes are
	// escaped.
	at := bytes.Index(head, nilMessages)
	if at < 0 {
		// A go-openai that no longer writes the key this way: its
		// marshalling in one buffer, as json.Marshal makes it.
		oreq.Messages = msgs
		b, err := json.Marshal(oreq)
		if err != nil {
			return nil, err
		}
		return wholeBody(b), nil
	}
	b := &body{pieces: make([][]byte, 0, 2*len(msgs)+3)}
	b.add(head[:at], openMessages)
	for i := range msgs {
		m, err := msgs[i].MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		if i > 0 {
			b.add(comma)
		}
		b.add(m)
	}
	b.add(closeArray, head[at+len(nilMessages):])
	return b, nil
}

func (b *body) add(pieces ...[]byte) {
	for _, p := range pieces {
		b.pieces = append(b.pieces, p)
		b.size += int64(len(p))
	}
}
