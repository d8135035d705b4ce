package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
)

// maxMessageBytes bounds one message (one line) from the client. The
// protocol library gives up the whole connection at a line of 10 MiB, so
// a longer one is answered and dropped here instead; a prompt's images
// (5 MB each at most, a third more in base64) fit a few to a message.
const maxMessageBytes = 8 << 20

// JSON-RPC 2.0's error codes for messages that never reach a method.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// envelope is a JSON-RPC message as the protocol library decodes it: a
// line that does not decode into this shape would be dropped there
// without an answer, so it is answered here.
type envelope struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id,omitempty"`
	Method  *string          `json:"method,omitempty"`
	Params  json.RawMessage  `json:"params,omitempty"`
	Result  json.RawMessage  `json:"result,omitempty"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	} `json:"error,omitempty"`
}

// verdict is what the frame reader makes of one line.
type verdict struct {
	pass  bool            // hand the line to the protocol library
	reply []byte          // else, the error response to write (nil: none)
	note  string          // why, for the log
	id    json.RawMessage // the request's id, when one was read
}

// judge decides on one line (without its newline): a JSON-RPC request,
// notification or response passes; anything else is answered with the
// error JSON-RPC 2.0 gives it (id null when no id could be read), except
// a broken response, which has nobody to answer and is dropped.
func judge(line []byte) verdict {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return verdict{note: "empty line"}
	}
	if !json.Valid(trimmed) {
		return verdict{reply: errorReply(nil, codeParseError, "Parse error", "the line is not JSON"), note: "not JSON"}
	}
	if trimmed[0] != '{' {
		return verdict{reply: errorReply(nil, codeInvalidRequest, "Invalid request", "a message is one JSON object (no batches)"), note: "not an object"}
	}
	var env envelope
	if err := json.Unmarshal(trimmed, &env); err != nil {
		id := idOf(trimmed)
		if hasMethod(trimmed) || id != nil {
			return verdict{reply: errorReply(id, codeInvalidRequest, "Invalid request", err.Error()), note: "bad envelope", id: id}
		}
		return verdict{note: "bad envelope: " + err.Error()}
	}
	var id json.RawMessage
	if env.ID != nil {
		id = *env.ID
		if !validID(id) {
			return verdict{reply: errorReply(nil, codeInvalidRequest, "Invalid request", "an id is a string, a number or null"), note: "bad id"}
		}
	}
	switch {
	case env.Method != nil && *env.Method == "":
		return verdict{reply: errorReply(id, codeInvalidRequest, "Invalid request", "the method is empty"), note: "empty method", id: id}
	case env.Method != nil:
		return verdict{pass: true, id: id}
	case env.ID != nil && (env.Result != nil || env.Error != nil):
		return verdict{pass: true, id: id} // a response to one of ours
	case env.ID != nil:
		return verdict{reply: errorReply(id, codeInvalidRequest, "Invalid request", "neither a method nor a result"), note: "no method", id: id}
	}
	return verdict{reply: errorReply(nil, codeInvalidRequest, "Invalid request", "neither a method nor an id"), note: "no method"}
}

// validID reports whether raw is an id JSON-RPC allows.
func validID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case nil, string, float64:
		return true
	}
	return false
}

// idOf is the id of a JSON object whose envelope did not decode, when
// the id itself is valid (nil otherwise).
func idOf(obj []byte) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return nil
	}
	id, ok := m["id"]
	if !ok || !validID(id) {
		return nil
	}
	return id
}

// hasMethod reports whether a JSON object has a "method" key.
func hasMethod(obj []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return false
	}
	_, ok := m["method"]
	return ok
}

// errorReply is a JSON-RPC error response, id null when id is nil.
func errorReply(id json.RawMessage, code int, message, detail string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   any             `json:"error"`
	}{"2.0", id, map[string]any{"code": code, "message": message, "data": map[string]string{"details": detail}}})
	return append(b, '\n')
}

// readFrames reads the client's lines from in until it ends, hands each
// message the protocol library can take to pass (one line each, newline
// included) and answers the others on out (errorReply); log hears of each
// line refused. A line over maxMessageBytes is read to its end in pieces,
// never held whole, and answered as too large. It returns in's error (nil
// at its end) or pass's.
func readFrames(in io.Reader, pass func(line []byte) error, out io.Writer, log func(note string)) error {
	br := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		switch {
		case len(line)+len(frag) > maxMessageBytes:
			line = line[:0]
			if errors.Is(err, bufio.ErrBufferFull) {
				err = skipLine(br)
			}
			log("a line over the size limit")
			if _, werr := out.Write(errorReply(nil, codeInvalidRequest, "Invalid request", "the message is larger than 8 MiB")); werr != nil {
				return werr
			}
		case errors.Is(err, bufio.ErrBufferFull):
			line = append(line, frag...)
			continue
		default:
			line = append(line, frag...)
			if werr := deliver(line, pass, out, log); werr != nil {
				return werr
			}
			line = line[:0]
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// skipLine reads the rest of a line and throws it away.
func skipLine(br *bufio.Reader) error {
	for {
		_, err := br.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

// deliver judges one whole line and passes or answers it.
func deliver(line []byte, pass func([]byte) error, out io.Writer, log func(string)) error {
	v := judge(line)
	if v.pass {
		msg := bytes.TrimSpace(line)
		return pass(append(msg[:len(msg):len(msg)], '\n'))
	}
	if v.note != "" && v.note != "empty line" {
		log(v.note)
	}
	if v.reply == nil {
		return nil
	}
	_, err := out.Write(v.reply)
	return err
}

// lineWriter is stdout as the protocol uses it: each Write is one whole
// message, written under one lock whoever writes it (the protocol library
// or readFrames), so lines never interleave. After writes it runs the
// hooks waiting for them (afterResponse).
type lineWriter struct {
	mu    sync.Mutex
	w     io.Writer
	hooks map[string]func() // by session id: run after the response naming it
}

func newLineWriter(w io.Writer) *lineWriter {
	return &lineWriter{w: w, hooks: map[string]func(){}}
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.w.Write(p)
	hook := l.takeHook(p)
	l.mu.Unlock()
	if hook != nil {
		go hook()
	}
	return n, err
}

// afterResponse runs fn once the response that names session id (a
// session/new result) has been written: the session's first
// notifications must follow it, or the client cannot route them.
func (l *lineWriter) afterResponse(id string, fn func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hooks[id] = fn
}

// takeHook is the hook for the response p, if any (l.mu held).
func (l *lineWriter) takeHook(p []byte) func() {
	if len(l.hooks) == 0 || !bytes.Contains(p, []byte(`"sessionId"`)) || !bytes.Contains(p, []byte(`"result"`)) {
		return nil
	}
	var resp struct {
		Result struct {
			SessionID string `json:"sessionId"`
		} `json:"result"`
	}
	if json.Unmarshal(p, &resp) != nil {
		return nil
	}
	fn := l.hooks[resp.Result.SessionID]
	delete(l.hooks, resp.Result.SessionID)
	return fn
}
