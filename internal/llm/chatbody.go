package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// chatBody is json.Marshal(oreq), byte for byte, at a fraction of the
// cost on a long conversation: encoding/json runs each message's own
// MarshalJSON (go-openai's, a reflective json.Marshal of its fields) and
// then scans what that returned a second time to compact and escape it,
// which it already is. Here the request is marshalled without its
// messages, and the messages are written into one buffer: a message of
// plain text (the most and the longest) directly, in go-openai's field
// order, and any other through its MarshalJSON. TestChatBodyIsJSONMarshal
// holds the two to the same bytes.
func chatBody(oreq openai.ChatCompletionRequest) ([]byte, error) {
	const none = `"messages":null`
	msgs := oreq.Messages
	oreq.Messages = nil
	head, err := json.Marshal(oreq)
	if err != nil {
		return nil, err
	}
	if msgs == nil {
		return head, nil
	}
	at := bytes.Index(head, []byte(none)) // the first key after "model": no string can hold its bare quotes
	if at < 0 {
		oreq.Messages = msgs
		return json.Marshal(oreq)
	}
	size := len(head) + 2
	for i := range msgs {
		n := len(msgs[i].Content) + len(msgs[i].Name) + len(msgs[i].ToolCallID) + 64
		size += n + n/8 // room for escapes
	}
	out := make([]byte, 0, size)
	out = append(out, head[:at]...)
	out = append(out, `"messages":[`...)
	for i := range msgs {
		if i > 0 {
			out = append(out, ',')
		}
		if plainMessage(&msgs[i]) {
			out = appendPlainMessage(out, &msgs[i])
			continue
		}
		m, err := msgs[i].MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		out = append(out, m...)
	}
	out = append(out, ']')
	return append(out, head[at+len(none):]...), nil
}

// plainMessage: m has no parts, calls or function call, so go-openai
// marshals it as its string fields alone.
func plainMessage(m *openai.ChatCompletionMessage) bool {
	return m.MultiContent == nil && m.FunctionCall == nil && len(m.ToolCalls) == 0
}

// appendPlainMessage appends what go-openai's MarshalJSON writes for a
// plain message: its string fields in declaration order, the empty ones
// left out but for the role.
func appendPlainMessage(out []byte, m *openai.ChatCompletionMessage) []byte {
	out = append(out, `{"role":`...)
	out = appendJSONString(out, m.Role)
	for _, f := range [...]struct{ key, val string }{
		{`,"content":`, m.Content}, {`,"refusal":`, m.Refusal}, {`,"name":`, m.Name},
		{`,"reasoning_content":`, m.ReasoningContent}, {`,"tool_call_id":`, m.ToolCallID},
	} {
		if f.val != "" {
			out = append(out, f.key...)
			out = appendJSONString(out, f.val)
		}
	}
	return append(out, '}')
}

// appendJSONString appends s as encoding/json writes a string: quoted, a
// quote and a backslash escaped, the control characters as \n, \r, \t,
// \b, \f or \u00XX, '<', '>' and '&' as \u003c, \u003e and \u0026 (its
// HTML escaping, on by default), U+2028 and U+2029 as \u2028 and \u2029,
// and each byte of invalid UTF-8 as \ufffd.
func appendJSONString(out []byte, s string) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	from := 0 // s[from:i] is yet to be copied as it is
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			out = append(out, s[from:i]...)
			switch c {
			case '"', '\\':
				out = append(out, '\\', c)
			case '\n':
				out = append(out, '\\', 'n')
			case '\r':
				out = append(out, '\\', 'r')
			case '\t':
				out = append(out, '\\', 't')
			case '\b':
				out = append(out, '\\', 'b')
			case '\f':
				out = append(out, '\\', 'f')
			default:
				out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			from = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, s[from:i]...)
			out = append(out, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			out = append(out, s[from:i]...)
			out = append(out, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		from = i
	}
	out = append(out, s[from:]...)
	return append(out, '"')
}
