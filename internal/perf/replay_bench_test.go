package perf

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// replayBytes is the size of the session BenchmarkReplay decodes: a
// history with no compaction, so a resume must read all of it.
const replayBytes = 200 << 20

var replayFixture struct {
	once    sync.Once
	path    string
	records int
	err     error
}

func replayFile(b *testing.B) (path string, records int) {
	b.Helper()
	replayFixture.once.Do(func() {
		replayFixture.path = filepath.Join(scratch, "replay.jsonl")
		f, err := os.Create(replayFixture.path)
		if err != nil {
			replayFixture.err = err
			return
		}
		defer f.Close()
		if _, err := (bigSession{bulk: replayBytes}).write(context.Background(), f, "replay", "/home/u/project", 0); err != nil {
			replayFixture.err = err
			return
		}
		if err := f.Sync(); err != nil {
			replayFixture.err = err
			return
		}
		replayFixture.records, replayFixture.err = decodeWithEncodingJSON(replayFixture.path)
	})
	if replayFixture.err != nil {
		b.Fatal(replayFixture.err)
	}
	return replayFixture.path, replayFixture.records
}

// decodeWithEncodingJSON is the baseline: a json.Decoder over the file,
// one storage.Record per value, nothing else.
func decodeWithEncodingJSON(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	n := 0
	for {
		var r storage.Record
		if err := dec.Decode(&r); err != nil {
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, err
		}
		n++
	}
}

// BenchmarkReplay decodes a 200 MB session with no boundary (a full
// replay): the store's ReadAll and LoadLive against encoding/json alone
// (a json.Decoder into storage.Record). The figure to read is MB/s.
func BenchmarkReplay(b *testing.B) {
	path, records := replayFile(b)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		run  func() (int, error)
	}{
		{"EncodingJSON", func() (int, error) { return decodeWithEncodingJSON(path) }},
		{"StorageReadAll", func() (int, error) {
			n := 0
			err := storage.ReadAll(ctx, path, func(int64, *storage.Record) error { n++; return nil }, nil)
			return n, err
		}},
		{"StorageLoadLive", func() (int, error) {
			live, err := storage.LoadLive(ctx, path)
			if err != nil {
				return 0, err
			}
			return len(live.Records), nil
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			for b.Loop() {
				n, err := bc.run()
				if err != nil || n != records {
					b.Fatalf("%d of %d records: %v", n, records, err)
				}
			}
		})
	}
}
