package storage

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"
)

// TestAppendReplicaKeepsTheFilesAlike: a session copied into another store
// in pieces by AppendReplica is byte for byte its origin, resumes to the
// same context from its boundary (whose offsets are the origin's), lists
// with the origin's title and count, and a record appended after it
// continues the parent chain from the replica's last record.
func TestAppendReplicaKeepsTheFilesAlike(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := mustCreate(t, newTestProject(t))
	mustAppend(t, src, userRecord("the first question"))
	mustAppend(t, src, assistantRecord("an answer", 10, 5))
	kept := userRecord("retained question")
	off := mustAppend(t, src, kept)
	if _, err := src.AppendBatch(boundaryRecord(off, kept.UUID), summaryRecord("the summary")); err != nil {
		t.Fatal(err)
	}
	last := userRecord("after the compaction")
	mustAppend(t, src, last)
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(src.Path())
	if err != nil {
		t.Fatal(err)
	}

	p := newTestProject(t)
	dst, err := p.CreateID(ctx, src.ID())
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.IndexByte(data, '\n') + 1
	for _, part := range [][]byte{data[:cut], data[cut:]} {
		at, err := dst.AppendReplica(part)
		if err != nil {
			t.Fatal(err)
		}
		if at != dst.Size()-int64(len(part)) {
			t.Fatalf("offset %d, size %d after %d bytes", at, dst.Size(), len(part))
		}
	}
	live, err := dst.LoadLive(ctx)
	if err != nil || len(live.Warnings) > 0 || live.Boundary == nil {
		t.Fatalf("the replica does not resume from its boundary: %v %v", err, live)
	}
	r := mustAppend(t, dst, userRecord("continued here"))
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(dst.Path())
	if !bytes.Equal(got[:len(data)], data) || r != int64(len(data)) {
		t.Fatal("the replica's bytes are not its origin's")
	}
	lines := readLines(t, dst.Path())
	if tail := lines[len(lines)-1]; !bytes.Contains([]byte(tail), []byte(`"parentUuid":"`+last.UUID+`"`)) {
		t.Fatalf("the next record does not follow the replica's last one: %s", tail)
	}
	list, err := p.List()
	if err != nil || len(list) != 1 || list[0].Title != "the first question" || list[0].Messages != 5 {
		t.Fatalf("listing %+v %v", list, err)
	}
}

// TestAppendReplicaRefusesPartialLines: bytes that stop inside a line, or
// a file that ends inside one, are refused and nothing is written.
func TestAppendReplicaRefusesPartialLines(t *testing.T) {
	t.Parallel()
	s := mustCreate(t, newTestProject(t))
	defer s.Close()
	if _, err := s.AppendReplica([]byte(`{"uuid":"a"}`)); !errors.Is(err, ErrNotReplica) {
		t.Fatalf("a partial line: %v", err)
	}
	if s.Size() != 0 {
		t.Fatalf("%d bytes written", s.Size())
	}
}
