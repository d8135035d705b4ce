package storage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/fixtures"
)

func TestCorruptedMiddleLine(t *testing.T) {
	t.Parallel()
	s := mustCreate(t, newTestProject(t))
	mustAppend(t, s, userRecord("one"))
	s.Close()
	appendRaw(t, s.Path(), "{\"type\":\"user\",\x00\x01garbage\n\n   \n")
	s2, _ := s.project.Open(context.Background(), s.ID())
	mustAppend(t, s2, userRecord("three"))
	s2.Close()

	recs, _, warns := readAll(t, s.Path())
	if len(recs) != 2 || recs[1].Message.Content != "three" {
		t.Fatalf("got %d records around a corrupted line", len(recs))
	}
	if len(warns) != 1 || !strings.Contains(warns[0], s.Path()+": line 2") {
		t.Fatalf("warnings %q, want one naming line 2 of the file", warns)
	}
	live, err := LoadLive(context.Background(), s.Path())
	if err != nil || len(live.Records) != 2 || len(live.Warnings) != 1 {
		t.Fatalf("LoadLive: %v, %d records, warnings %q", err, len(live.Records), live.Warnings)
	}
}

func TestFiftyMegabyteLine(t *testing.T) {
	t.Parallel()
	s := mustCreate(t, newTestProject(t))
	mustAppend(t, s, userRecord("run it"))
	s.Close()
	// Written raw, and decoded once: JSON over 50 MB under -race is what
	// would dominate the test, and the line reader is what is under test.
	big := strings.Repeat("0123456789abcdef", 50<<20/16)
	appendRaw(t, s.Path(), `{"type":"tool_result","toolResult":{"id":"call_1","output":"`+big+`"}}`+"\n")
	appendRaw(t, s.Path(), `{"type":"user","message":{"role":"user","content":"after"}}`+"\n")

	live, err := LoadLive(context.Background(), s.Path())
	if err != nil || len(live.Warnings) != 0 || len(live.Records) != 3 {
		t.Fatalf("LoadLive of a 50 MB line: %v, warnings %q", err, live.Warnings)
	}
	if live.Records[1].Record.ToolResult.Output != big || live.Records[2].Record.Message.Content != "after" {
		t.Fatalf("the 50 MB line or the one after it did not load whole")
	}
}

func TestInvalidUTF8(t *testing.T) {
	t.Parallel()
	s := mustCreate(t, newTestProject(t))
	mustAppend(t, s, userRecord("ok"))
	s.Close()
	appendRaw(t, s.Path(), "{\"type\":\"tool_result\",\"toolResult\":{\"id\":\"c\",\"output\":\"bad \xff\xfe bytes\"}}\n")

	recs, _, warns := readAll(t, s.Path())
	if len(recs) != 2 || len(warns) != 0 {
		t.Fatalf("invalid UTF-8: %d records, warnings %q", len(recs), warns)
	}
	out := recs[1].ToolResult.Output
	if !utf8.ValidString(out) || !strings.HasPrefix(out, "bad ") || !strings.HasSuffix(out, " bytes") {
		t.Fatalf("output %q", out)
	}
}

func TestReadAllOffsetsAndErrors(t *testing.T) {
	t.Parallel()
	s := mustCreate(t, newTestProject(t))
	var want []int64
	for _, txt := range []string{"a", "bb", "ccc"} {
		want = append(want, mustAppend(t, s, userRecord(txt)))
	}
	s.Close()
	_, offs, _ := readAll(t, s.Path())
	for i := range want {
		if offs[i] != want[i] {
			t.Fatalf("offsets %v, want %v", offs, want)
		}
	}
	stop := errors.New("stop")
	err := ReadAll(context.Background(), s.Path(), func(int64, *Record) error { return stop }, nil)
	if !errors.Is(err, stop) {
		t.Fatalf("ReadAll did not pass on the callback's error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ReadAll(ctx, s.Path(), func(int64, *Record) error { return nil }, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("ReadAll with a cancelled context = %v", err)
	}
	missing := filepath.Join(t.TempDir(), "nope.jsonl")
	if err := ReadAll(context.Background(), missing, nil, nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ReadAll of a missing file = %v, want ErrNotFound", err)
	}
	if _, err := LoadLive(context.Background(), missing); !errors.Is(err, ErrNotFound) {
		t.Fatalf("LoadLive of a missing file = %v, want ErrNotFound", err)
	}
}

func TestNotJSONLAtAll(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"empty": "",
		"nul":   strings.Repeat("\x00", 1<<20),
		"text":  "hello\nworld",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		live, err := LoadLive(context.Background(), path)
		if err != nil || len(live.Records) != 0 {
			t.Errorf("%s: LoadLive = %v, %d records", name, err, len(live.Records))
		}
	}
}

// FuzzLoader: any bytes load without panic, and a well-formed line after
// them is always recovered.
func FuzzLoader(f *testing.F) {
	f.Add([]byte("{\"type\":\"user\"}\n"))
	f.Add([]byte("{\"subtype\":\"compact_boundary\",\"type\":\"system\",\"compactMetadata\":{\"retainedOffset\":3}}\n"))
	f.Add([]byte("\xff\x00{"))
	// Real session files of another agent (Claude Code), whose record
	// shapes differ from clawdcode's: every line must load or be skipped.
	for _, seed := range fixtures.Glob(f, "claude-code", "*.jsonl") {
		f.Add(fixtures.Read(f, "claude-code", filepath.Base(seed)))
	}
	good := `{"uuid":"sentinel","type":"user","message":{"role":"user","content":"x"}}` + "\n"
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		content := append(append([]byte{}, data...), '\n')
		content = append(content, good...)
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		recs, _, _ := readAll(t, path)
		if len(recs) == 0 || recs[len(recs)-1].UUID != "sentinel" {
			t.Fatalf("well-formed last line lost")
		}
		live, err := LoadLive(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		if len(live.Records) == 0 || live.Records[len(live.Records)-1].Record.UUID != "sentinel" {
			t.Fatalf("LoadLive lost the last line")
		}
	})
}
