package logfile

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenWritesJSONLinesAt0600(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	log, closeLog, err := OpenRedacted(home, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	log.Info("request", "status", 200, "bytes", 1234)
	log.Debug("hidden at the default level")
	if err := closeLog(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, "logs", Name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	if len(lines) != 1 {
		t.Fatalf("%d lines, want 1 (debug is off by default):\n%s", len(lines), data)
	}
	var rec map[string]any
	if err := json.Unmarshal(lines[0], &rec); err != nil || rec["msg"] != "request" || rec["status"] != float64(200) {
		t.Fatalf("record %s: %v", lines[0], err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("log mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestDebugAndOff(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	log, closeLog, _ := OpenRedacted(home, "debug", nil)
	log.Debug("detail")
	closeLog()
	data, _ := os.ReadFile(filepath.Join(home, "logs", Name))
	if !strings.Contains(string(data), "detail") {
		t.Fatalf("CLAWDCODE_LOG=debug did not log debug records: %q", data)
	}
	off := t.TempDir()
	log, closeLog, _ = OpenRedacted(off, "off", nil)
	log.Error("nothing")
	closeLog()
	if _, err := os.Stat(filepath.Join(off, "logs")); !os.IsNotExist(err) {
		t.Fatalf("CLAWDCODE_LOG=off created the log directory: %v", err)
	}
}

func TestRotatesPastMaxBytes(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := filepath.Join(home, "logs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("x"), MaxBytes)
	if err := os.WriteFile(filepath.Join(dir, Name), big, 0o600); err != nil {
		t.Fatal(err)
	}
	log, closeLog, err := OpenRedacted(home, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	log.Info("fresh")
	closeLog()
	old, _ := os.Stat(filepath.Join(dir, Name+".1"))
	cur, _ := os.Stat(filepath.Join(dir, Name))
	if old == nil || old.Size() != MaxBytes || cur == nil || cur.Size() > 1024 {
		t.Fatalf("after rotation: .1 = %v, current = %v", old, cur)
	}
}

// A log that cannot be opened (CLAWDCODE_HOME is a file) fails nothing.
func TestUnopenableLogDiscards(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(home, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	log, closeLog, err := OpenRedacted(home, "", nil)
	if err == nil {
		t.Fatal("no error for a home that is a file")
	}
	log.Info("goes nowhere")
	if closeLog() != nil {
		t.Fatal("close of the discarding logger failed")
	}
}

// TestOpenRedacted: every record passes through the redactor before it is
// written.
func TestOpenRedacted(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	redact := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("sk-log-secret"), []byte("[REDACTED]")) }
	log, closeLog, err := OpenRedacted(home, "", redact)
	if err != nil {
		t.Fatal(err)
	}
	log.Info("llm request failed", "message", "key sk-log-secret refused")
	closeLog()
	data, err := os.ReadFile(filepath.Join(home, "logs", Name))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("sk-log-secret")) || !bytes.Contains(data, []byte("key [REDACTED] refused")) {
		t.Errorf("log: %s", data)
	}
}
