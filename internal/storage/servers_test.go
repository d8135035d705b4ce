package storage

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestServerWindowCache(t *testing.T) {
	t.Parallel()
	s := NewStore(t.TempDir())
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	if _, ok := s.ServerWindow("http://a/v1", "m", now); ok {
		t.Fatal("empty cache answered")
	}
	if err := s.SetServerWindow("http://a/v1", "m", ServerWindow{Tokens: 8192, Source: "x", Checked: now}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetServerWindow("http://b/v1", "m", ServerWindow{Checked: now}); err != nil {
		t.Fatal(err)
	}
	if w, ok := s.ServerWindow("http://a/v1", "m", now.Add(time.Hour)); !ok || w.Tokens != 8192 {
		t.Fatalf("cached answer = %+v, %v", w, ok)
	}
	if _, ok := s.ServerWindow("http://a/v1", "other", now); ok {
		t.Fatal("another model's answer was served")
	}
	if _, ok := s.ServerWindow("http://a/v1", "m", now.Add(ServerWindowTTL+time.Second)); ok {
		t.Fatal("an expired answer was served")
	}
	if _, ok := s.ServerWindow("http://b/v1", "m", now.Add(30*time.Minute)); !ok {
		t.Fatal("a fresh 'unknown' answer was not served")
	}
	if _, ok := s.ServerWindow("http://b/v1", "m", now.Add(ServerWindowUnknownTTL+time.Second)); ok {
		t.Fatal("an expired 'unknown' answer was served")
	}
	fi, err := os.Stat(filepath.Join(s.Home(), serversFile))
	if err != nil || fi.Mode().Perm() != filePerm {
		t.Fatalf("cache file mode = %v, %v; want %v", fi.Mode().Perm(), err, os.FileMode(filePerm))
	}
	if err := os.WriteFile(filepath.Join(s.Home(), serversFile), []byte("{garbage"), filePerm); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.ServerWindow("http://a/v1", "m", now); ok {
		t.Fatal("a corrupt cache answered")
	}
	if err := s.SetServerWindow("http://a/v1", "m", ServerWindow{Tokens: 1, Checked: now}); err != nil {
		t.Fatalf("a corrupt cache could not be replaced: %v", err)
	}
}
