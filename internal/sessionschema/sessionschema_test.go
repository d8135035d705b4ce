package sessionschema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
)

const (
	common = `"parentUuid":null,"uuid":"0b0a1a5e-4d3c-4e0f-9a1b-2c3d4e5f6a7b","sessionId":"1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f","timestamp":"2026-11-23T22:00:00.123Z",`
	tail   = `"cwd":"/home/dev/p","version":"dev"`
)

func rec(typ, rest string) string {
	return `{` + common + `"type":"` + typ + `",` + tail + rest + `}`
}

// The schema must accept what clawdcode writes and reject the mistakes a
// writer could make, or the suite-wide check holds nothing.
func TestSchemaAcceptsAndRejects(t *testing.T) {
	t.Parallel()
	good := map[string]string{
		"user":                        rec("user", `,"message":{"role":"user","content":"hi"}`),
		"user tokens":                 rec("user", `,"message":{"role":"user","content":"hi"},"tokens":12`),
		"assistant":                   rec("assistant", `,"message":{"role":"assistant","content":"","model":"gpt-4o","usage":{"input_tokens":10,"output_tokens":2}}`),
		"tool_use":                    rec("tool_use", `,"tool":{"id":"call_1","name":"Read","input":{"file_path":"a.go"}}`),
		"tool_use non-JSON arguments": rec("tool_use", `,"tool":{"id":"call_1","name":"Read","input":"{not json"}`),
		"tool_result":                 rec("tool_result", `,"toolResult":{"id":"call_1","output":"x","error":"boom"}`),
		"title":                       rec("title", `,"title":"Refactor"`),
		"boundary": `{` + common + `"type":"system","subtype":"compact_boundary",` + tail +
			`,"message":{"role":"system","content":"Conversation compacted"},"compactMetadata":{"trigger":"auto","preTokens":900,"retainedOffset":412,"retainedUuid":"0b0a1a5e-4d3c-4e0f-9a1b-2c3d4e5f6a7b","sessionUsage":{"input_tokens":1,"output_tokens":2},"truncated":{"0b0a1a5e-4d3c-4e0f-9a1b-2c3d4e5f6a7b":4096},"effectiveWindow":8000}}`,
		"summary":         rec("user", `,"message":{"role":"user","content":"summary"},"isCompactSummary":true,"compactMetadata":{"trigger":"manual","preTokens":900,"postTokens":120,"filesIncluded":["a.go"],"fallback":true,"error":"server error","failures":1,"skipsLeft":2},"tokens":40`),
		"context_window":  `{` + common + `"type":"system","subtype":"context_window",` + tail + `,"contextWindow":8000}`,
		"context_cut":     `{` + common + `"type":"system","subtype":"context_cut",` + tail + `,"compactMetadata":{"trigger":"","preTokens":0,"truncated":{"0b0a1a5e-4d3c-4e0f-9a1b-2c3d4e5f6a7b":100}}}`,
		"context_clear":   `{` + common + `"type":"system","subtype":"context_clear",` + tail + `,"compactMetadata":{"trigger":"auto","preTokens":7200,"postTokens":3600,"cleared":{"0b0a1a5e-4d3c-4e0f-9a1b-2c3d4e5f6a7b":"superseded"}}}`,
		"context_give_up": `{` + common + `"type":"system","subtype":"context_give_up",` + tail + `,"compactMetadata":{"trigger":"auto","preTokens":7090,"postTokens":7000}}`,
	}
	for name, line := range good {
		if !json.Valid([]byte(line)) {
			t.Fatalf("%s: test line is not JSON: %s", name, line)
		}
		if err := Validate(t, []byte(line)); err != nil {
			t.Errorf("%s: rejected: %v", name, err)
		}
	}
	bad := map[string]string{
		"unknown type":                  rec("note", `,"message":{"role":"user","content":"hi"}`),
		"unknown subtype":               `{` + common + `"type":"system","subtype":"pinned",` + tail + `}`,
		"system without subtype":        rec("system", `,"message":{"role":"system","content":"x"}`),
		"unknown field":                 rec("user", `,"message":{"role":"user","content":"hi"},"mood":"ok"`),
		"misspelt field":                rec("tool_result", `,"tool_result":{"id":"c","output":"x"}`),
		"wrong field type":              rec("user", `,"message":{"role":"user","content":["hi"]}`),
		"wrong role":                    rec("user", `,"message":{"role":"assistant","content":"hi"}`),
		"usage as string":               rec("assistant", `,"message":{"role":"assistant","content":"","model":"m","usage":{"input_tokens":"10","output_tokens":2}}`),
		"missing uuid":                  strings.Replace(rec("user", `,"message":{"role":"user","content":"hi"}`), `"uuid":"0b0a1a5e-4d3c-4e0f-9a1b-2c3d4e5f6a7b",`, "", 1),
		"local timestamp":               strings.Replace(rec("user", `,"message":{"role":"user","content":"hi"}`), `.123Z`, `.123+01:00`, 1),
		"field of another type":         rec("user", `,"message":{"role":"user","content":"hi"},"contextWindow":8000`),
		"summary without metadata":      rec("user", `,"message":{"role":"user","content":"s"},"isCompactSummary":true`),
		"context_clear without results": `{` + common + `"type":"system","subtype":"context_clear",` + tail + `,"compactMetadata":{"trigger":"auto","preTokens":7200}}`,
		"context_clear unknown step":    `{` + common + `"type":"system","subtype":"context_clear",` + tail + `,"compactMetadata":{"trigger":"auto","preTokens":7200,"cleared":{"0b0a1a5e-4d3c-4e0f-9a1b-2c3d4e5f6a7b":"dropped"}}}`,
		"context_give_up without size":  `{` + common + `"type":"system","subtype":"context_give_up",` + tail + `,"compactMetadata":{"trigger":"auto","preTokens":7090}}`,
		"context_give_up with results":  `{` + common + `"type":"system","subtype":"context_give_up",` + tail + `,"compactMetadata":{"trigger":"auto","preTokens":7090,"postTokens":7000,"cleared":{"0b0a1a5e-4d3c-4e0f-9a1b-2c3d4e5f6a7b":"clear"}}}`,
		"boundary bad trigger": `{` + common + `"type":"system","subtype":"compact_boundary",` + tail +
			`,"message":{"role":"system","content":"c"},"compactMetadata":{"trigger":"sometimes","preTokens":1}}`,
	}
	for name, line := range bad {
		if !json.Valid([]byte(line)) {
			t.Fatalf("%s: test line is not JSON: %s", name, line)
		}
		if err := Validate(t, []byte(line)); err == nil {
			t.Errorf("%s: accepted: %s", name, line)
		}
	}
}

// CheckFile must report a bad record written after from, and leave alone
// the lines a test installed before it and lines that are not JSON.
func TestCheckFile(t *testing.T) {
	t.Parallel()
	planted := `{"hand":"made"}` + "\n"
	body := planted + "#### corrupted ####\n" + rec("user", `,"message":{"role":"user","content":"hi"}`) + "\n" + `{"torn":`
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	rt := &recorder{TB: t}
	CheckFile(rt, path, int64(len(planted)))
	if rt.errors != 0 {
		t.Errorf("CheckFile from after the planted line reported %d errors", rt.errors)
	}
	rt = &recorder{TB: t}
	CheckFile(rt, path, 0)
	if rt.errors != 1 {
		t.Errorf("CheckFile from 0 reported %d errors, want 1 (the hand-made record)", rt.errors)
	}
}

type recorder struct {
	testing.TB
	errors int
}

func (r *recorder) Errorf(string, ...any) { r.errors++ }
func (r *recorder) Helper()               {}

// The format version is stated in the document and in the schema; they
// must agree, so that a change to one reminds the writer of the other.
func TestFormatVersionAgrees(t *testing.T) {
	t.Parallel()
	root := fixtures.Root(t)
	raw, err := os.ReadFile(filepath.Join(root, File))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Version string `json:"x-format-version"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "session-format.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^Format version: \*\*([0-9]+\.[0-9]+)\*\*`).FindSubmatch(doc)
	if m == nil {
		t.Fatal(`docs/session-format.md has no "Format version: **X.Y**" line`)
	}
	if s.Version == "" || string(m[1]) != s.Version {
		t.Errorf("docs/session-format.md says format %s, %s says %q", m[1], File, s.Version)
	}
}
