package importer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/secrets"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// tricky is JSON string contents that a transcoder cut in the wrong place
// would change: escapes of every kind, a surrogate pair, lone surrogates,
// UTF-8 of every length, invalid UTF-8 (a cut sequence, a run of
// continuation bytes), U+2028 and characters HTML escaping would touch.
const tricky = `a\/b \u00e9 \ud83d\ude00 lone \ud83d x \udc00 y é 😀 中 ` + "\u2028" + ` \u2028 \u0001 \t\n\r\b\f <>& \"q\" \\ ` +
	"\xe4\xb8 z \x80\x80\x80\x80\x80\x80 \xff\xfe|"

// hugeSource writes a Claude Code transcript whose strings are made of
// tricky, repeated: in a tool result (a string and text blocks), the
// user's and the assistant's text, a tool's input, toolUseResult and the
// summary; and a line whose long string is no valid JSON string.
func hugeSource(t *testing.T, dir, mid string) {
	t.Helper()
	pdir := filepath.Join(dir, "-p")
	if err := os.MkdirAll(pdir, 0o700); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat(tricky, 40)
	half := big[:len(tricky)*20]
	lines := []string{
		`{"type":"summary","summary":"` + big + `"}`,
		`{"type":"user","uuid":"00000000-0000-4000-8000-000000000001","sessionId":"s-large","cwd":"/work/p","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"` + big + `"}}`,
		`{"type":"assistant","uuid":"00000000-0000-4000-8000-000000000002","sessionId":"s-large","cwd":"/work/p","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m1","role":"assistant","model":"claude","content":[{"type":"text","text":"` + big + `"},{"type":"tool_use","id":"t1","name":"Write","input":{"content":"` + big + `"}}]}}`,
		`{"type":"user","uuid":"00000000-0000-4000-8000-000000000003","sessionId":"s-large","cwd":"/work/p","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"` + half + mid + half + `"}]},"toolUseResult":{"stdout":"` + big + `"}}`,
		`{"type":"user","uuid":"00000000-0000-4000-8000-000000000004","sessionId":"s-large","cwd":"/work/p","timestamp":"2026-01-01T00:00:03Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"` + big + `"},{"type":"text","text":"` + big + `"}]}]}}`,
		`{"type":"user","uuid":"00000000-0000-4000-8000-000000000005","sessionId":"s-large","cwd":"/work/p","timestamp":"2026-01-01T00:00:04Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"` + big + `\x"}]}}`,
	}
	f, err := os.Create(filepath.Join(pdir, "s-large.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
		t.Fatal(err)
	}
}

// importInto imports dir into a new store and returns the session's lines
// decoded, without the uuids the store makes up, and the warnings.
func importInto(t *testing.T, tool, dir, id string, red storage.Redactor) ([]map[string]any, []byte, []string) {
	t.Helper()
	st := storage.NewStore(t.TempDir())
	if red != nil {
		st.SetRedactor(red)
	}
	var warnings []string
	im := &Importer{Store: st, Warn: func(s string) { warnings = append(warnings, s) }}
	if _, err := im.Import(context.Background(), tool, dir); err != nil {
		t.Fatal(err)
	}
	p, err := st.ProjectAt("/work/p")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p.Path(id))
	if err != nil {
		t.Fatalf("%v; warnings %q", err, warnings)
	}
	return sessionRecords(t, data), data, warnings
}

// sessionRecords decodes a session file's lines, without the uuids the
// store makes up.
func sessionRecords(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	var recs []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("a line of the session does not parse: %v\n%.300s", err, sc.Bytes())
		}
		delete(m, "uuid")
		delete(m, "parentUuid")
		recs = append(recs, m)
	}
	return recs
}

// withLargeThresholds makes every string past 40 bytes (a uuid, a time are
// shorter) of a line past
// a few hundred a large text, read back in pieces of piece bytes.
func withLargeThresholds(t *testing.T, piece int) {
	line, str, p, rb := hugeLine, largeString, transcodePiece, readBuffer
	hugeLine, largeString, transcodePiece, readBuffer = 300, 40, piece, 256
	t.Cleanup(func() { hugeLine, largeString, transcodePiece, readBuffer = line, str, p, rb })
}

// A huge line's strings left in the source and written by the store
// piece by piece make the same session as the line read whole, whatever
// the pieces (cut inside escapes, surrogate pairs and UTF-8 sequences
// would change it), and a line that does not parse is still skipped.
func TestHugeLinesImportAsWhenReadWhole(t *testing.T) {
	src := t.TempDir()
	hugeSource(t, src, "")
	whole, _, wantWarn := importInto(t, ClaudeCode, src, "s-large", nil)
	// The import record, user, assistant, tool_use, two tool results,
	// the title.
	if len(whole) != 7 || len(wantWarn) != 1 || !strings.Contains(wantWarn[0], "does not parse") {
		t.Fatalf("read whole: %d records, want 7; warnings %q", len(whole), wantWarn)
	}
	for _, piece := range []int{1 << 20, 7, 1} {
		withLargeThresholds(t, piece)
		got, data, warn := importInto(t, ClaudeCode, src, "s-large", nil)
		if bytes.Contains(data, []byte("clawdcode-large")) {
			t.Errorf("pieces of %d: a reference reached the file", piece)
		}
		if len(warn) != 1 || !strings.Contains(warn[0], "does not parse") {
			t.Errorf("pieces of %d: warnings %q", piece, warn)
		}
		if !reflect.DeepEqual(got, whole) {
			for i := range min(len(got), len(whole)) {
				if !reflect.DeepEqual(got[i], whole[i]) {
					t.Errorf("pieces of %d: record %d differs:\n got %.400v\nwant %.400v", piece, i, got[i], whole[i])
				}
			}
			t.Fatalf("pieces of %d: the session differs (%d records, want %d)", piece, len(got), len(whole))
		}
	}
}

// The store's Redactor sees a large text: a key in the middle of a tool
// output left in the source, cut across pieces, does not reach the file.
func TestHugeLineKeyIsRedacted(t *testing.T) {
	const key = "sk-test-KEYMARKER-0123456789abcdef"
	src := t.TempDir()
	hugeSource(t, src, key)
	withLargeThresholds(t, 5)
	recs, data, _ := importInto(t, ClaudeCode, src, "s-large", secrets.NewRedactor(key))
	if bytes.Contains(data, []byte(key)) || bytes.Contains(data, []byte("KEYMARKER")) {
		t.Fatal("the key reached the session file")
	}
	var out string
	for _, r := range recs {
		if tr, ok := r["toolResult"].(map[string]any); ok {
			out = tr["output"].(string)
			break
		}
	}
	if !strings.Contains(out, secrets.Redacted) {
		t.Errorf("the tool output holds no %s", secrets.Redacted)
	}
}

// A Codex rollout's huge lines make the same session as when read whole:
// texts, tool inputs and outputs of every shape.
func TestHugeCodexLinesImportAsWhenReadWhole(t *testing.T) {
	var big string
	if err := json.Unmarshal([]byte(`"`+strings.Repeat(tricky, 40)+`"`), &big); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]string{"cmd": big})
	id := "11111111-2222-4333-8444-555555555555"
	var lines []string
	for _, l := range []map[string]any{
		{"type": "session_meta", "payload": map[string]any{"id": id, "cwd": "/work/p"}},
		{"type": "response_item", "payload": map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": big}}}},
		{"type": "response_item", "payload": map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": big}}}},
		{"type": "response_item", "payload": map[string]any{"type": "function_call", "name": "shell", "call_id": "c1", "arguments": string(args)}},
		{"type": "response_item", "payload": map[string]any{"type": "function_call_output", "call_id": "c1", "output": big}},
		{"type": "response_item", "payload": map[string]any{"type": "function_call_output", "call_id": "c1", "output": map[string]any{"content": big}}},
		{"type": "response_item", "payload": map[string]any{"type": "function_call_output", "call_id": "c1", "output": map[string]any{"other": big}}},
		{"type": "compacted", "payload": map[string]any{"message": big}},
	} {
		l["timestamp"] = "2026-01-01T00:00:00Z"
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "rollout-2026-01-01T00-00-00-"+id+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	whole, _, _ := importInto(t, Codex, src, id, nil)
	withLargeThresholds(t, 7)
	got, data, warn := importInto(t, Codex, src, id, nil)
	// An output of no known shape is stored as its JSON text: the same
	// value, escaped as the transcoder escapes it.
	for _, recs := range [][]map[string]any{whole, got} {
		for _, r := range recs {
			if tr, ok := r["toolResult"].(map[string]any); ok && strings.HasPrefix(tr["output"].(string), "{") {
				var v any
				if err := json.Unmarshal([]byte(tr["output"].(string)), &v); err != nil {
					t.Fatalf("an output stored as JSON text does not parse: %v", err)
				}
				tr["output"] = v
			}
		}
	}
	if bytes.Contains(data, []byte("clawdcode-large")) || len(warn) > 0 {
		t.Errorf("a reference reached the file, or warnings %q", warn)
	}
	for i := range min(len(got), len(whole)) {
		if !reflect.DeepEqual(got[i], whole[i]) {
			t.Errorf("record %d differs:\n got %.300v\nwant %.300v", i, got[i], whole[i])
		}
	}
	if len(whole) != 9 || !reflect.DeepEqual(got, whole) {
		t.Errorf("the session differs from the one read whole (%d records, want %d of 9)", len(got), len(whole))
	}
}
