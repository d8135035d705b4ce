package repl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

const (
	historyKeep = 500             // entries offered to the line editor
	historyTail = 256 << 10       // bytes of the file read at start-up
	historyTrim = 2 * historyKeep // rewrite the file once it holds this many lines
)

// history is the prompt history file: one entry per line, appended with one
// write per entry. It is kept here rather than by the line editor so that
// the file is created 0600 (in a 0700 directory) and stays so when trimmed.
type history struct {
	path string

	mu sync.Mutex
	f  *os.File
}

// openHistory opens (creating) the history file and returns it with its
// most recent entries, oldest first.
func openHistory(path string) (*history, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create history directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open history: %w", err)
	}
	return &history{path: path, f: f}, nil
}

// Entries returns the last historyKeep entries, oldest first, reading only
// the tail of the file; a file grown past historyTrim lines is rewritten
// to its last historyKeep.
func (h *history) Entries() ([]string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	fi, err := h.f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat history: %w", err)
	}
	off := max(fi.Size()-historyTail, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := h.f.ReadAt(buf, off); err != nil && err != io.EOF {
		return nil, fmt.Errorf("read history: %w", err)
	}
	if off > 0 { // the first line is probably cut: drop it
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		}
	}
	var entries []string
	for _, line := range strings.Split(string(buf), "\n") {
		if strings.TrimSpace(line) != "" {
			entries = append(entries, decodeHistoryLine(line))
		}
	}
	// A file past the tail size or the line bound is cut back to what the
	// editor offers, so it never grows without end.
	rewrite := off > 0 || len(entries) >= historyTrim
	if len(entries) > historyKeep {
		entries = entries[len(entries)-historyKeep:]
	}
	if rewrite {
		if err := h.rewrite(entries); err != nil {
			return entries, err
		}
	}
	return entries, nil
}

// rewrite replaces the file atomically by one holding entries.
func (h *history) rewrite(entries []string) error {
	tmp, err := os.CreateTemp(filepath.Dir(h.path), ".history-*")
	if err != nil {
		return fmt.Errorf("trim history: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename this finds nothing
	lines := make([]string, len(entries))
	for i, entry := range entries {
		lines[i] = encodeHistoryLine(entry)
	}
	if _, err := tmp.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
		tmp.Close()
		return fmt.Errorf("trim history: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("trim history: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("trim history: %w", err)
	}
	if err := os.Rename(tmp.Name(), h.path); err != nil {
		return fmt.Errorf("trim history: %w", err)
	}
	f, err := os.OpenFile(h.path, os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("reopen history: %w", err)
	}
	h.f.Close()
	h.f = f
	return nil
}

// Add appends one entry, newlines and all (see encodeHistoryLine).
func (h *history) Add(entry string) error {
	entry = historyLine(entry)
	if entry == "" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, err := h.f.WriteString(encodeHistoryLine(entry) + "\n"); err != nil {
		return fmt.Errorf("append history: %w", err)
	}
	return nil
}

// historyLine is the entry as history keeps it: a multi-line prompt stays
// multi-line, so recalling it sends what was sent.
func historyLine(entry string) string {
	return strings.TrimSpace(entry)
}

// encodeHistoryLine puts an entry on one line of the file. A plain
// single-line entry is written as it is, as files before multi-line
// entries held them; one with a line break, or one that starts with a
// quote (and so would read as encoded), is written as a JSON string.
func encodeHistoryLine(entry string) string {
	if !strings.ContainsAny(entry, "\r\n") && !strings.HasPrefix(entry, `"`) {
		return entry
	}
	b, _ := json.Marshal(entry) // a string always marshals
	return string(b)
}

// decodeHistoryLine undoes encodeHistoryLine; a line that starts with a
// quote but is not a JSON string (written by hand, or before encoding)
// is taken as it is.
func decodeHistoryLine(line string) string {
	if strings.HasPrefix(line, `"`) {
		var s string
		if json.Unmarshal([]byte(line), &s) == nil {
			return s
		}
	}
	return line
}

func (h *history) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.f.Close()
}
