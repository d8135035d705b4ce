package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func usageTotals(t *testing.T, p *Project) map[string]Usage {
	t.Helper()
	us, err := p.Usage(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Usage{}
	for _, s := range us {
		for _, r := range s.Rows {
			k := r.Model
			if r.Summary {
				k += "/summary"
			}
			v := out[k]
			v.Add(r.Usage())
			out[k] = v
		}
	}
	return out
}

// A session the store wrote has its usage in index.json: Usage reads it
// from there, not from the file. The proof: the file's numbers changed in
// place behind the store's back (same size, same mtime) do not show; once
// index.json is gone, they do.
func TestUsageKeptInStepByAppend(t *testing.T) {
	p := newTestProject(t)
	s := mustCreate(t, p)
	t0 := time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC)
	mustAppend(t, s, &Record{Type: TypeUser, Timestamp: t0, Message: &Message{Role: "user", Content: "hi"}})
	a := assistantRecord("hello", 100, 10)
	a.Timestamp = t0.Add(time.Minute)
	a.Message.Usage.CacheReadInputTokens = 40
	mustAppend(t, s, a)
	b := assistantRecord("again", 200, 20)
	b.Timestamp = t0.Add(2 * time.Hour)
	b.Message.Model = "gpt-4.1"
	mustAppend(t, s, b)
	if _, err := s.AppendBatch(
		&Record{Type: TypeSystem, Subtype: SubtypeCompactBoundary, Timestamp: t0.Add(3 * time.Hour),
			CompactMetadata: &CompactMetadata{Trigger: TriggerAuto, Receipt: &Receipt{SummaryUsage: &Usage{InputTokens: 50, OutputTokens: 5}}}},
		&Record{Type: TypeUser, IsCompactSummary: true, Message: &Message{Role: "user", Content: "sum"}, CompactMetadata: &CompactMetadata{Trigger: TriggerAuto}},
	); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	fi0, _ := os.Stat(sessionPath(p, s.ID()))
	if e := p.readIndex(p.Dir)[s.ID()]; e == nil || e.Usage == nil || e.Usage.Scanned != fi0.Size() {
		t.Fatalf("the index entry's summary does not cover the file the session wrote: %+v", e)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want := map[string]Usage{
		"gpt-4o":          {InputTokens: 100, CacheReadInputTokens: 40, OutputTokens: 10},
		"gpt-4.1":         {InputTokens: 200, OutputTokens: 20},
		"gpt-4.1/summary": {InputTokens: 50, OutputTokens: 5},
	}
	if got := usageTotals(t, p); !equalUsage(got, want) {
		t.Fatalf("usage = %v, want %v", got, want)
	}

	path := sessionPath(p, s.ID())
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	changed := bytes.Replace(data, []byte(`"input_tokens":100,`), []byte(`"input_tokens":900,`), 1)
	if bytes.Equal(changed, data) {
		t.Fatal("the test's edit found nothing to change")
	}
	if err := os.WriteFile(path, changed, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got := usageTotals(t, p)["gpt-4o"].InputTokens; got != 100 {
		t.Fatalf("usage read the file: input %d, want the index's 100", got)
	}
	if err := os.Remove(filepath.Join(p.Dir, indexName)); err != nil {
		t.Fatal(err)
	}
	if got := usageTotals(t, p)["gpt-4o"].InputTokens; got != 900 {
		t.Fatalf("without index.json: input %d, want the file's 900", got)
	}
}

// A session another program appended to is caught up from where its
// summary stopped, and the summary written back covers the whole file.
func TestUsageCatchesUpAppendedBytes(t *testing.T) {
	p := newTestProject(t)
	s := mustCreate(t, p)
	mustAppend(t, s, userRecord("hi"))
	mustAppend(t, s, assistantRecord("one", 10, 1))
	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(&Record{UUID: "6f1c7a4e-0000-4000-8000-000000000001", SessionID: id, Type: TypeAssistant,
		Timestamp: time.Now().UTC(), Message: &Message{Role: "assistant", Model: "gpt-4o", Usage: &Usage{InputTokens: 7, OutputTokens: 3}}})
	appendRaw(t, sessionPath(p, id), string(line)+"\n"+`{"torn`)
	if got := usageTotals(t, p)["gpt-4o"]; got != (Usage{InputTokens: 17, OutputTokens: 4}) {
		t.Fatalf("usage = %+v, want the appended reply counted and the torn line not", got)
	}
	e := p.readIndex(p.Dir)[id]
	fi, _ := os.Stat(sessionPath(p, id))
	if e == nil || e.Usage == nil || e.Usage.Scanned != fi.Size()-int64(len(`{"torn`)) {
		t.Fatalf("index entry's summary not written back up to the last whole line: %+v", e)
	}
	// The torn line completed later is counted once whole.
	appendRaw(t, sessionPath(p, id), `":1}`+"\n")
	if got := usageTotals(t, p)["gpt-4o"]; got != (Usage{InputTokens: 17, OutputTokens: 4}) {
		t.Fatalf("usage = %+v after the torn line was closed", got)
	}
}

// A subagent's session names its parent in its summary.
func TestUsageNamesTheParent(t *testing.T) {
	p := newTestProject(t)
	s := mustCreate(t, p)
	mustAppend(t, s, &Record{Type: TypeSystem, Subtype: SubtypeSubagentStart, Subagent: &SubagentInfo{SessionID: "parent-1", ToolUseID: "call_1"}})
	mustAppend(t, s, assistantRecord("done", 5, 1))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, remove := range []bool{false, true} {
		if remove {
			os.Remove(filepath.Join(p.Dir, indexName))
		}
		us, err := p.Usage(context.Background())
		if err != nil || len(us) != 1 || us[0].Parent != "parent-1" {
			t.Fatalf("index removed %v: %+v, %v", remove, us, err)
		}
	}
}

func equalUsage(a, b map[string]Usage) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
