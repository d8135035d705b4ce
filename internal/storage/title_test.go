package storage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTitle(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"fix the bug", "fix the bug"},
		{"\n\n  fix   the\tbug  \nmore text", "fix the bug"},
		{"", ""},
		{strings.Repeat("word ", 30), strings.TrimSpace(strings.Repeat("word ", 11)) + "…"},
		{strings.Repeat("x", 100), strings.Repeat("x", titleRunes-1) + "…"},
		{strings.Repeat("日本", 40), strings.Repeat("日本", titleRunes/2-1) + "日…"},
	}
	for _, tt := range tests {
		got := Title(tt.in)
		if got != tt.want {
			t.Errorf("Title(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if n := utf8.RuneCountInString(got); n > titleRunes {
			t.Errorf("Title(%q) has %d runes, more than %d", tt.in, n, titleRunes)
		}
	}
}

// The title the engine gives a new session and the one an index rebuild
// derives from the file are the same function's: rebuilding never renames.
func TestTitleSurvivesIndexRebuild(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	p, err := NewStore(home).Project(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	first := "\n  please   refactor the storage layer so that every index rebuild keeps the same titles as before\nand more"
	s, err := p.Create(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	s.SetTitle(Title(first))
	if _, err := s.Append(&Record{Type: TypeUser, Message: &Message{Role: "user", Content: first}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := p.List()
	if err != nil || len(before) != 1 {
		t.Fatalf("list: %v %v", before, err)
	}
	if err := os.Remove(filepath.Join(p.Dir, indexName)); err != nil {
		t.Fatal(err)
	}
	after, err := p.List()
	if err != nil || len(after) != 1 {
		t.Fatalf("list after rebuild: %v %v", after, err)
	}
	if before[0].Title != after[0].Title {
		t.Fatalf("title changed on rebuild: %q → %q", before[0].Title, after[0].Title)
	}
}
