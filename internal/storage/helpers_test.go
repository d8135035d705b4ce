package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMain doubles as the second process of the cross-process tests: when
// STORAGE_HELPER is set the test binary runs that role instead of tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv("STORAGE_HELPER"); mode != "" {
		os.Exit(runHelper(mode))
	}
	os.Exit(m.Run())
}

const exitBusy = 3

func runHelper(mode string) int {
	ctx := context.Background()
	p, err := NewStore(os.Getenv("STORAGE_HOME")).Project(os.Getenv("STORAGE_ROOT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	id := os.Getenv("STORAGE_ID")
	switch mode {
	case "append":
		s, err := p.Open(ctx, id)
		if errors.Is(err, ErrSessionBusy) {
			fmt.Fprintln(os.Stderr, err)
			return exitBusy
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		n, _ := strconv.Atoi(os.Getenv("STORAGE_N"))
		for i := range n {
			if _, err := s.Append(userRecord(fmt.Sprintf("child %d", i))); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		if err := s.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	case "hold":
		// Take the lock, say so, and keep it until killed or stdin ends.
		if _, err := p.Open(ctx, id); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println("locked")
		buf := make([]byte, 1)
		os.Stdin.Read(buf)
		return 0
	case "fsize":
		// A full disk: writes past STORAGE_N bytes fail (EFBIG) after a
		// short write. Exit 0 when the append failed, as it must.
		limit, _ := strconv.Atoi(os.Getenv("STORAGE_N"))
		if err := limitFileSize(uint64(limit)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		s, err := p.Open(ctx, id)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		_, err = s.AppendBatch(userRecord(strings.Repeat("x", 8<<10)), userRecord("after"))
		s.Close()
		if err == nil {
			fmt.Fprintln(os.Stderr, "append past the file size limit succeeded")
			return 1
		}
		fmt.Fprintln(os.Stderr, err)
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown helper mode", mode)
	return 1
}

func userRecord(text string) *Record {
	return &Record{Type: TypeUser, Message: &Message{Role: "user", Content: text}}
}

func assistantRecord(text string, in, out int) *Record {
	return &Record{Type: TypeAssistant, Message: &Message{Role: "assistant", Content: text, Model: "gpt-4o", Usage: &Usage{InputTokens: in, OutputTokens: out}}}
}

// newTestProject returns a project in a fresh home and a fresh root.
func newTestProject(t testing.TB) *Project {
	t.Helper()
	p, err := NewStore(t.TempDir()).Project(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustCreate(t testing.TB, p *Project) *Session {
	t.Helper()
	s, err := p.Create(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustAppend(t testing.TB, s *Session, r *Record) int64 {
	t.Helper()
	off, err := s.Append(r)
	if err != nil {
		t.Fatal(err)
	}
	return off
}

// readLines returns the file's lines (the last one even without '\n').
func readLines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func appendRaw(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func readAll(t testing.TB, path string) (recs []*Record, offs []int64, warns []string) {
	t.Helper()
	err := ReadAll(context.Background(), path, func(off int64, r *Record) error {
		recs = append(recs, r)
		offs = append(offs, off)
		return nil
	}, func(w string) { warns = append(warns, w) })
	if err != nil {
		t.Fatal(err)
	}
	return recs, offs, warns
}

func sessionPath(p *Project, id string) string { return filepath.Join(p.Dir, id+".jsonl") }
