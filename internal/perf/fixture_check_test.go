package perf

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// The benchmarks time resumes and replays of generated sessions; these
// tests make sure the generator writes what the store means by a session,
// so a benchmark never times a fallback or a file full of skipped lines.

func TestFixtureResumesFromItsBoundary(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p, err := storage.NewStore(t.TempDir()).Project(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	spec := bigSession{bulk: 2 << 20, retained: 32 << 10, live: 128 << 10, withBoundary: true}
	_, path, retainedUUID, err := createSession(ctx, p, spec)
	if err != nil {
		t.Fatal(err)
	}
	live, err := storage.LoadLive(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(live.Warnings) > 0 {
		t.Fatalf("warnings: %q", live.Warnings)
	}
	if live.Boundary == nil || live.Summary == nil {
		t.Fatalf("boundary %v, summary %v: want both", live.Boundary != nil, live.Summary != nil)
	}
	first := live.Records[0]
	if first.Record.UUID != retainedUUID || first.Offset != live.Boundary.CompactMetadata.RetainedOffset {
		t.Fatalf("live context starts at %d %s, want the retained record %d %s",
			first.Offset, first.Record.UUID, live.Boundary.CompactMetadata.RetainedOffset, retainedUUID)
	}
	if first.Record.Type != storage.TypeUser {
		t.Fatalf("retained region starts with a %s record, want user", first.Record.Type)
	}
	var liveBytes int64
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	liveBytes = fi.Size() - first.Offset
	if liveBytes < spec.retained+spec.live || liveBytes > 2*(spec.retained+spec.live) {
		t.Fatalf("live context is %d bytes, want about %d", liveBytes, spec.retained+spec.live)
	}
}

func TestFixtureReplaysEveryLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (bigSession{bulk: 1 << 20}).write(context.Background(), f, "s", "/p", 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Count(data, []byte("\n"))
	var records int
	var parent *string
	var warnings []string
	err = storage.ReadAll(context.Background(), path, func(_ int64, r *storage.Record) error {
		if (parent == nil) != (r.ParentUUID == nil) || (parent != nil && *parent != *r.ParentUUID) {
			t.Fatalf("record %d: parentUuid does not chain", records)
		}
		u := r.UUID
		parent = &u
		records++
		return nil
	}, func(w string) { warnings = append(warnings, w) })
	if err != nil {
		t.Fatal(err)
	}
	if records != lines || len(warnings) > 0 {
		t.Fatalf("%d records of %d lines, warnings %q", records, lines, warnings)
	}
}
