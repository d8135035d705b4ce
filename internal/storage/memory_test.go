package storage

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestContentBytes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		r    *Record
		want int64
	}{
		{userRecord("hello"), 5},
		{&Record{Type: TypeToolUse, Tool: &ToolUse{Name: "Read", Input: json.RawMessage(`{"a":1}`)}}, 11},
		{&Record{Type: TypeToolResult, ToolResult: &ToolResult{Output: "abc", Error: "e"}}, 4},
		{&Record{Type: TypeSystem}, 0},
	}
	for _, tt := range tests {
		if got := ContentBytes(tt.r); got != tt.want {
			t.Errorf("ContentBytes(%+v) = %d, want %d", tt.r, got, tt.want)
		}
	}
}

func TestMemoryStoreBound(t *testing.T) {
	t.Parallel()
	m := NewMemoryStore[LiveRecord](10)
	if err := m.Add(LiveRecord{Offset: 0, Record: userRecord("12345")}); err != nil {
		t.Fatal(err)
	}
	if err := m.Add(LiveRecord{Offset: 50, Record: userRecord("67890")}); err != nil {
		t.Fatal(err)
	}
	err := m.Add(LiveRecord{Offset: 100, Record: userRecord("x")})
	if !errors.Is(err, ErrContextTooLarge) || len(m.Records()) != 2 || m.Bytes() != 10 {
		t.Fatalf("Add past the bound: %v, len %d, bytes %d", err, len(m.Records()), m.Bytes())
	}
	// Cutting a record down makes room.
	if err := m.Update(1, LiveRecord{Offset: 50, Record: userRecord("6")}); err != nil || m.Bytes() != 6 {
		t.Fatalf("Update: %v, bytes %d", err, m.Bytes())
	}
	if err := m.Update(1, LiveRecord{Offset: 50, Record: userRecord(strings.Repeat("y", 20))}); !errors.Is(err, ErrContextTooLarge) || m.Records()[1].Record.Message.Content != "6" {
		t.Fatalf("Update past the bound: %v", err)
	}
	if err := m.Update(5, LiveRecord{Record: userRecord("")}); err == nil {
		t.Fatal("Update out of range succeeded")
	}
	if err := m.Replace([]LiveRecord{{Record: userRecord(strings.Repeat("z", 11))}}); !errors.Is(err, ErrContextTooLarge) || len(m.Records()) != 2 {
		t.Fatalf("Replace past the bound: %v, len %d", err, len(m.Records()))
	}
	if err := m.Replace([]LiveRecord{{Offset: 7, Record: userRecord("abc")}}); err != nil || len(m.Records()) != 1 || m.Bytes() != 3 || m.Records()[0].Offset != 7 {
		t.Fatalf("Replace: %v, %d records, %d bytes", err, len(m.Records()), m.Bytes())
	}
	if m.Max() != 10 {
		t.Fatalf("Max = %d, want 10", m.Max())
	}
	if err := NewMemoryStore[LiveRecord](0).Add(LiveRecord{Record: userRecord(strings.Repeat("a", 1<<20))}); err != nil {
		t.Fatalf("unbounded store refused: %v", err)
	}
}

func TestCacheStore(t *testing.T) {
	t.Parallel()
	c := NewCacheStore(2, time.Hour)
	c.Add("a", 1)
	c.Add("b", 2)
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Fatalf("Get(a) = %v, %v", v, ok)
	}
	c.Add("c", 3) // evicts b, the least recently used
	if _, ok := c.Get("b"); ok {
		t.Fatal("b survived eviction")
	}
	if !c.Remove("a") || c.Len() != 1 {
		t.Fatalf("Remove: len %d", c.Len())
	}

	short := NewCacheStore(10, 20*time.Millisecond)
	short.Add("k", "v")
	deadline := time.Now().Add(time.Minute) // a safety net, not a measure
	for {
		if _, ok := short.Get("k"); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("entry never expired")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
