package acp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// runFrames feeds input to readFrames and returns the lines passed on and
// the replies written.
func runFrames(t testing.TB, input []byte) (passed, replies [][]byte) {
	t.Helper()
	var out bytes.Buffer
	err := readFrames(bytes.NewReader(input), func(line []byte) error {
		passed = append(passed, append([]byte(nil), line...))
		return nil
	}, &out, func(string) {})
	if err != nil {
		t.Fatalf("readFrames: %v", err)
	}
	for _, l := range bytes.SplitAfter(out.Bytes(), []byte("\n")) {
		if len(l) > 0 {
			replies = append(replies, l)
		}
	}
	return passed, replies
}

func TestJudge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		pass bool
		code int    // of the reply, 0 = none
		id   string // of the reply
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, true, 0, ""},
		{`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`, true, 0, ""},
		{`{"jsonrpc":"2.0","id":"a","result":{"outcome":{"outcome":"cancelled"}}}`, true, 0, ""},
		{`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"no"}}`, true, 0, ""},
		{`   `, false, 0, ""},
		{`nope`, false, codeParseError, "null"},
		{`{"a":`, false, codeParseError, "null"},
		{`[1,2]`, false, codeInvalidRequest, "null"},
		{`"a string"`, false, codeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":3,"method":7}`, false, codeInvalidRequest, "3"},
		{`{"jsonrpc":"2.0","id":4,"method":""}`, false, codeInvalidRequest, "4"},
		{`{"jsonrpc":"2.0","id":[1],"method":"x"}`, false, codeInvalidRequest, "null"},
		{`{"jsonrpc":"2.0","id":5}`, false, codeInvalidRequest, "5"},
		{`{"jsonrpc":"2.0"}`, false, codeInvalidRequest, "null"},
		// A response whose error is no object: nobody to answer.
		{`{"jsonrpc":"2.0","id":6,"error":"broken"}`, false, codeInvalidRequest, "6"},
		{`{"jsonrpc":"2.0","error":"broken"}`, false, 0, ""},
	}
	for _, tt := range tests {
		v := judge([]byte(tt.line))
		if v.pass != tt.pass {
			t.Errorf("%s: pass %v, want %v", tt.line, v.pass, tt.pass)
			continue
		}
		if tt.code == 0 {
			if v.reply != nil {
				t.Errorf("%s: replied %s", tt.line, v.reply)
			}
			continue
		}
		var r struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(v.reply, &r); err != nil || r.Error.Code != tt.code || string(r.ID) != tt.id {
			t.Errorf("%s: replied %s, want code %d id %s", tt.line, v.reply, tt.code, tt.id)
		}
	}
}

// A line over the bound is answered once and read to its end in pieces;
// the lines around it pass.
func TestReadFramesOversizedLine(t *testing.T) {
	t.Parallel()
	ok := `{"jsonrpc":"2.0","id":1,"method":"initialize"}`
	input := ok + "\n" + `{"jsonrpc":"2.0","id":2,"method":"x","params":"` + strings.Repeat("a", maxMessageBytes) + "\"}\n" + ok + "\r\n"
	passed, replies := runFrames(t, []byte(input))
	if len(passed) != 2 || string(passed[0]) != ok+"\n" || string(passed[1]) != ok+"\n" {
		t.Fatalf("passed %q", passed)
	}
	if len(replies) != 1 || !bytes.Contains(replies[0], []byte(`"code":-32600`)) {
		t.Fatalf("replies %q", replies)
	}
	// Without a final newline, the last line is still a message.
	passed, _ = runFrames(t, []byte(ok))
	if len(passed) != 1 {
		t.Fatalf("passed %q", passed)
	}
}

// FuzzReadFrames: whatever a client sends, the reader never fails, and
// what it passes on is one JSON object per line within the bound, each of
// which the protocol library decodes; what it writes back is one JSON-RPC
// error per line.
func FuzzReadFrames(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n",
		"not json\n[1]\n{\"id\":1}\n",
		`{"jsonrpc":"2.0","id":{"x":1},"method":"m"}` + "\n" + `{"jsonrpc":"2.0","id":1e999,"method":"m"}`,
		"\x00\xff\n\n\r\n{\"method\":\"\\ud800\"}\n",
		`{"jsonrpc":"2.0","id":2,"result":null}` + "\n" + `{"jsonrpc":"2.0","id":3,"error":{"code":1.5}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		passed, replies := runFrames(t, input)
		for _, line := range passed {
			if len(line) > maxMessageBytes+1 || line[len(line)-1] != '\n' || bytes.Count(line, []byte("\n")) != 1 {
				t.Fatalf("passed a line that is not one bounded line: %q", line)
			}
			var env envelope
			if err := json.Unmarshal(line, &env); err != nil {
				t.Fatalf("passed a line the library cannot decode: %q: %v", line, err)
			}
			if env.Method == nil && env.ID == nil {
				t.Fatalf("passed a line with neither method nor id: %q", line)
			}
		}
		for _, r := range replies {
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(r, &m); err != nil || m.JSONRPC != "2.0" || m.Error == nil || m.ID == nil {
				t.Fatalf("wrote %q, not a JSON-RPC error", r)
			}
		}
	})
}
