package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
)

// UnmarshalJSON is how a content value was decoded with encoding/json,
// kept here as the reference the JSON v2 decoding is held to (the v2
// decoder calls UnmarshalJSONFrom; encoding/json calls this).
func (c *ccContent) UnmarshalJSON(raw []byte) error {
	switch {
	case len(raw) > 0 && raw[0] == '"':
		json.Unmarshal(raw, &c.text)
	case len(raw) > 0 && raw[0] == '[':
		json.Unmarshal(raw, &c.blocks)
	}
	return nil
}

// oddLines are lines another program could write that a Claude Code
// transcript does not hold: every way the two decoders could part.
var oddLines = []string{
	`{"Type":"user","UUID":"u1","MESSAGE":{"role":"user","Content":"case folded"}}`,
	`{"messAge":{"Content":[{"tooluseid":"0","tool-use-id":"1","TOOL_USE_ID":"2"}]}}`,
	`{"type":"user","type":"assistant","message":{"content":"a"},"message":{"id":"m"}}`,
	"{\"type\":\"user\",\"message\":{\"content\":\"bad \xff\xfe utf-8 \xe2\x82\"}}",
	`{"type":"user","message":{"content":"lone \ud800 surrogate \udc00 and pair \ud83d\ude00"}}`,
	`{"type":"user","message":{"content":[{"type":"text","text":"kept","is_error":"yes"},{"type":"text","text":"after"}]}}`,
	`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":1},{"type":"text","text":"x"}]}]}}`,
	`{"type":"user","message":{"content":[1,"two",{"type":"text","text":"three"}]}}`,
	`{"type":"user","message":{"content":{"type":"text","text":"an object"}}}`,
	`{"type":"user","message":{"content":null}}`,
	`{"type":"user","message":{"content":42}}`,
	`{"type":"user","message":null}`,
	`{"type":"user","isSidechain":"true"}`,
	`{"type":"user","timestamp":"2025-01-02T03:04:05.123456789+01:00"}`,
	`{"type":"user","timestamp":"2025-01-02 03:04:05"}`,
	`{"type":"user","timestamp":""}`,
	`{"type":"user","timestamp":null}`,
	`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"manual","preTokens":1.5}}`,
	`{"type":"system","subtype":"compact_boundary","compactMetadata":{"preTokens":1e3}}`,
	`{"type":"assistant","message":{"id":"m","usage":{"input_tokens":-3,"output_tokens":99999999999999999999}}}`,
	`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command" : "ls",  "x":[1, 2]}}]}}`,
	`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":null}]}}`,
	`{"type":"tool_use","tool":{"id":"t","name":"Read","input":{"path":"a"}},"toolResult":{"id":"t","output":"o"}}`,
	`{"type":"user","parentUuid":null,"uuid":"u","message":{"content":"\u003c\u0000 \"quoted\" \\ \/ \b\f\n\r\t"}}`,
	`{"type":"user","message":{"content":"x"}} trailing`,
	`{"type":"user","message":{"content":"x"}`,
	`[]`,
	`null`,
	`"a string"`,
	`{"type":"user","message":{"content":[{"type":"text","text":"a"}]},"toolUseResult":{"stdout":[1,{"a":null}],"deep":[[[[]]]]}}`,
}

// decodesLikeEncodingJSON is "" when the import reads line as
// encoding/json does — the same ccLine, or an error from both (a line
// that fails is skipped whatever the error says) — and the difference
// otherwise.
func decodesLikeEncodingJSON(line []byte) string {
	var v2, v1 ccLine
	err2, err1 := decodeLine(line, &v2), json.Unmarshal(line, &v1)
	switch {
	case (err2 == nil) != (err1 == nil):
		return fmt.Sprintf("v2 error %v\nencoding/json error %v", err2, err1)
	case err1 == nil && !reflect.DeepEqual(v2, v1):
		return fmt.Sprintf("v2            %+v\nencoding/json %+v", v2, v1)
	}
	return ""
}

// TestDecodeLikeEncodingJSON holds the JSON v2 decoding of a source line
// to encoding/json's: the same ccLine, or an error from both (a line that
// fails is skipped whatever the error says), for every line of the real
// transcripts and for lines written oddly.
func TestDecodeLikeEncodingJSON(t *testing.T) {
	var lines [][]byte
	for _, tr := range fixtures.ClaudeTranscripts {
		for _, l := range bytes.Split(fixtures.Read(t, "claude-code", tr), []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines = append(lines, l)
			}
		}
	}
	for _, l := range oddLines {
		lines = append(lines, []byte(l))
	}
	for _, l := range lines {
		if d := decodesLikeEncodingJSON(l); d != "" {
			t.Errorf("%.200s:\n%s", l, d)
		}
	}
}

// FuzzDecodeLikeEncodingJSON is TestDecodeLikeEncodingJSON for any line.
func FuzzDecodeLikeEncodingJSON(f *testing.F) {
	for _, l := range oddLines {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if d := decodesLikeEncodingJSON(line); d != "" {
			t.Fatal(d)
		}
	})
}
