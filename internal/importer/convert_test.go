package importer

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// convert runs a converter over a real fixture's lines.
func convert(t *testing.T, tool string, path ...string) *converted {
	t.Helper()
	out := &converted{uuids: map[string]bool{}}
	c := newConverter(tool, out)
	for i, line := range bytes.Split(fixtures.Read(t, path...), []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := c.line(line); err != nil {
			t.Fatalf("%s line %d: %v", path[len(path)-1], i+1, err)
		}
	}
	c.end()
	return out
}

// kinds lists the records as type[/subtype][+tools], one letter-ish each.
func kinds(recs []*storage.Record) string {
	var out []string
	for _, r := range recs {
		k := r.Type
		switch {
		case r.Subtype != "":
			k += "/" + r.Subtype
		case r.IsCompactSummary:
			k = "summary"
		}
		out = append(out, k)
	}
	return strings.Join(out, " ")
}

func TestClaudeCodeRepliesSplitPerBlockBecomeOneReply(t *testing.T) {
	t.Parallel()
	out := convert(t, ClaudeCode, "claude-code", "spotter_real_short.jsonl")
	// The reply's text, thinking and two tool_use blocks (six lines with
	// one message.id, a progress line between them) are one assistant
	// record and its two calls; the user answered both with denials. The
	// "[Request interrupted by user for tool use]" marker that ends it is
	// not imported as a user message (it would be joined to the next
	// prompt).
	want := "user assistant tool_use tool_use tool_result tool_result"
	if got := kinds(out.recs); got != want {
		t.Errorf("records: %s\nwant     %s", got, want)
	}
	if out.sessionID != "55604662-cf2a-4331-851a-ec234028f8ca" || out.cwd == "" {
		t.Errorf("session %q cwd %q", out.sessionID, out.cwd)
	}
	a := out.recs[1]
	if !strings.Contains(a.Message.Content, "Let me check the project structure") || a.Message.Model == "" || a.Message.Usage == nil {
		t.Errorf("assistant record: %+v", a.Message)
	}
	if out.recs[2].Tool.Name != "Bash" || out.recs[3].Tool.Name != "Glob" || out.recs[4].ToolResult.ID != out.recs[2].Tool.ID {
		t.Errorf("calls and results: %+v %+v %+v", out.recs[2].Tool, out.recs[3].Tool, out.recs[4].ToolResult)
	}
}

func TestClaudeCodeRewindAndCompaction(t *testing.T) {
	t.Parallel()
	out := convert(t, ClaudeCode, "claude-code", "claude-code-log_dag_compact_after_rewind.jsonl")
	want := "user assistant user assistant system/rewind user assistant user assistant system/compact_boundary summary user assistant"
	if got := kinds(out.recs); got != want {
		t.Errorf("records: %s\nwant     %s", got, want)
	}
	rw := out.recs[4]
	if rw.Rewind == nil || rw.Rewind.UUID != out.recs[2].UUID {
		t.Errorf("the rewind names %+v, want the first attempt %s", rw.Rewind, out.recs[2].UUID)
	}
	b := out.recs[9]
	if b.CompactMetadata == nil || b.CompactMetadata.RetainedUUID != "" || b.CompactMetadata.PreTokens == 0 {
		t.Errorf("boundary: %+v", b.CompactMetadata)
	}
}

func TestClaudeCodeSummaryLineIsTheTitle(t *testing.T) {
	t.Parallel()
	out := convert(t, ClaudeCode, "claude-code", "simonw_claude-code-transcripts_sample_session.jsonl")
	if out.title != "Test session for JSONL parsing" {
		t.Errorf("title %q", out.title)
	}
}

func TestCodexCompactionsBecomeBoundaryAndSummary(t *testing.T) {
	t.Parallel()
	out := convert(t, Codex, "codex", "rollout-2026-11-23T15-58-06-01a20920-faf5-7b82-b470-7899bbb2e813.jsonl")
	if out.sessionID != "01a20920-faf5-7b82-b470-7899bbb2e813" || out.cwd != "/home/dev/inventory" {
		t.Errorf("session %q cwd %q", out.sessionID, out.cwd)
	}
	got := strings.ReplaceAll(kinds(out.recs), " system/model_usage", "")
	if n := strings.Count(got, "system/compact_boundary summary"); n != 3 {
		t.Errorf("%d compactions, want 3: %s", n, got)
	}
	if !strings.Contains(got, "user assistant tool_use tool_result assistant") {
		t.Errorf("the exec_command call: %s", got)
	}
	for _, r := range out.recs {
		if r.Message != nil && strings.Contains(r.Message.Content, "<environment_context>") {
			t.Errorf("Codex's injected context was imported: %.60q", r.Message.Content)
		}
		if r.IsCompactSummary && !strings.Contains(r.Message.Content, "Another language model started") {
			t.Errorf("a summary without Codex's summary: %.80q", r.Message.Content)
		}
	}
}

// A Codex rollout's token_count events become model_usage records that
// add up to its running total, an event repeated without new tokens
// counted once.
func TestCodexTokenCountsBecomeModelUsage(t *testing.T) {
	t.Parallel()
	name := "rollout-2026-11-23T15-58-06-01a20920-faf5-7b82-b470-7899bbb2e813.jsonl"
	out := convert(t, Codex, "codex", name)
	var got storage.Usage
	n := 0
	for _, r := range out.recs {
		if r.Subtype == storage.SubtypeModelUsage {
			n++
			got.Add(r.ModelUsage.Usage)
			if r.ModelUsage.Model != "gpt-4o" {
				t.Errorf("model %q", r.ModelUsage.Model)
			}
		}
	}
	var want storage.Usage
	events := 0
	for _, line := range bytes.Split(fixtures.Read(t, "codex", name), []byte("\n")) {
		var l struct {
			Payload cxTokenCount `json:"payload"`
		}
		if json.Unmarshal(line, &l) == nil && l.Payload.Type == "token_count" && l.Payload.Info != nil {
			events++
			tot := l.Payload.Info.Total
			want = storage.Usage{InputTokens: tot.Input, CacheReadInputTokens: tot.Cached, OutputTokens: tot.Output}
		}
	}
	if got != want || want.InputTokens == 0 {
		t.Errorf("model_usage records add up to %+v, want the rollout's total %+v", got, want)
	}
	if n == 0 || n >= events {
		t.Errorf("%d model_usage records for %d events: the repeated ones must not count", n, events)
	}
}

// A Claude Code reply's cache reads stay part of its input and are also
// kept apart, so that a report prices them at the cached price.
func TestClaudeCodeCacheReadsKeptApart(t *testing.T) {
	t.Parallel()
	out := convert(t, ClaudeCode, "claude-code", "spotter_real_tool_heavy.jsonl")
	var u storage.Usage
	for _, r := range out.recs {
		if r.Type == storage.TypeAssistant && r.Message.Usage != nil {
			u.Add(*r.Message.Usage)
		}
	}
	if u.CacheReadInputTokens == 0 || u.CacheReadInputTokens >= u.InputTokens {
		t.Errorf("usage %+v: the cache reads are not kept apart within the input", u)
	}
	// Each API call (message id) counts once, at its last line's usage,
	// however many records its blocks became.
	last := map[string]storage.Usage{}
	for _, line := range bytes.Split(fixtures.Read(t, "claude-code", "spotter_real_tool_heavy.jsonl"), []byte("\n")) {
		var l struct {
			Type    string `json:"type"`
			Message struct {
				ID    string `json:"id"`
				Usage *struct {
					In    int `json:"input_tokens"`
					Write int `json:"cache_creation_input_tokens"`
					Read  int `json:"cache_read_input_tokens"`
					Out   int `json:"output_tokens"`
				} `json:"usage"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &l) == nil && l.Type == "assistant" && l.Message.Usage != nil {
			mu := l.Message.Usage
			last[l.Message.ID] = storage.Usage{InputTokens: mu.In + mu.Write + mu.Read, CacheReadInputTokens: mu.Read, OutputTokens: mu.Out}
		}
	}
	var want storage.Usage
	for _, v := range last {
		want.Add(v)
	}
	if u != want {
		t.Errorf("replies carry %+v, the transcript's calls used %+v", u, want)
	}
}
