package sessionsync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/clawdcode/clawdcode/internal/objstore"
	"github.com/clawdcode/clawdcode/internal/s3test"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// benchSessions and benchSessionBytes make the benchmark's 1 GiB: 16
// sessions of 64 MiB, each records of about 256 KiB (a long tool output a
// turn), written through storage as a session would be.
const (
	benchSessions     = 16
	benchSessionBytes = 64 << 20
)

// benchCorpus is the sessions, written once per process.
var benchCorpus struct {
	once  sync.Once
	home  string
	root  string
	files []string
	total int64
	err   error
}

func corpus(b *testing.B) (home, root string, files []string, total int64) {
	b.Helper()
	c := &benchCorpus
	c.once.Do(func() {
		dir, err := os.MkdirTemp("", "sync-bench-")
		if err != nil {
			c.err = err
			return
		}
		c.home, c.root = filepath.Join(dir, "home"), filepath.Join(dir, "project")
		if err := os.MkdirAll(c.root, 0o755); err != nil {
			c.err = err
			return
		}
		p, err := storage.NewStore(c.home).Project(c.root)
		if err != nil {
			c.err = err
			return
		}
		text := strings.Repeat("a tool's long output, line after line of it; ", 256<<10/46)
		for range benchSessions {
			s, err := p.Create(context.Background())
			if err != nil {
				c.err = err
				return
			}
			for s.Size() < benchSessionBytes {
				if _, err := s.Append(&storage.Record{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: text}}); err != nil {
					c.err = err
					return
				}
			}
			c.files = append(c.files, s.Path())
			c.total += s.Size()
			if err := s.Close(); err != nil {
				c.err = err
				return
			}
		}
	})
	if c.err != nil {
		b.Fatal(c.err)
	}
	return c.home, c.root, c.files, c.total
}

// BenchmarkSync1GB pushes and pulls 1 GiB of sessions through SeaweedFS on
// loopback, side by side with the same bytes uploaded and downloaded as
// plain objects by the same client (cut as a push cuts them, as many
// transfers at once): push and pull must be at least half as fast as the
// plain upload (issue 37). encrypted-push and encrypted-pull do the same
// with CLAWDCODE_SYNC_KEY.
func BenchmarkSync1GB(b *testing.B) {
	srv := s3test.Start(b)
	home, _, files, total := corpus(b)
	bucket := srv.Bucket(b)
	newObjects := func(prefix string) *objstore.S3 {
		s, err := objstore.New(objstore.Config{Location: objstore.Location{Bucket: bucket, Prefix: prefix}, Endpoint: srv.Endpoint,
			AccessKey: s3test.AccessKey, SecretKey: s3test.SecretKey})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	run := 0
	next := func(what string) string { run++; return fmt.Sprintf("%s-%d", what, run) }
	var pushed, pushedSealed string

	b.Run("plain-put", func(b *testing.B) {
		b.SetBytes(total)
		for range b.N {
			if err := plainPut(b.Context(), newObjects(next("plain")), files); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, tc := range []struct {
		name, key string
		dst       *string
	}{{"push", "", &pushed}, {"encrypted-push", "bench passphrase", &pushedSealed}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(total)
			for range b.N {
				*tc.dst = next(tc.name)
				s := New(Options{Store: storage.NewStore(home), Objects: newObjects(*tc.dst), Location: *tc.dst, Endpoint: srv.Endpoint, Passphrase: tc.key})
				rep := &Report{}
				if err := s.Push(b.Context(), rep); err != nil || rep.Err() != nil || rep.PushedBytes != total {
					b.Fatalf("push: %v %v %+v", err, rep.Err(), rep)
				}
			}
		})
	}
	for _, tc := range []struct {
		name, key string
		src       *string
	}{{"pull", "", &pushed}, {"encrypted-pull", "bench passphrase", &pushedSealed}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(total)
			for range b.N {
				b.StopTimer()
				dst := b.TempDir()
				s := New(Options{Store: storage.NewStore(dst), Objects: newObjects(*tc.src), Location: *tc.src + "-pull", Endpoint: srv.Endpoint, Passphrase: tc.key})
				b.StartTimer()
				rep := &Report{}
				if err := s.Pull(b.Context(), rep); err != nil || rep.Err() != nil || rep.PulledBytes != total {
					b.Fatalf("pull: %v %v %+v", err, rep.Err(), rep)
				}
			}
		})
	}
}

// plainPut uploads files as plain objects: each cut into pieces of at
// most maxSegment bytes (at line ends, as a push cuts them), with as many
// bytes in flight as a push allows.
func plainPut(ctx context.Context, obj *objstore.S3, files []string) error {
	s := New(Options{Store: storage.NewStore(os.TempDir())})
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(sessionsAtOnce * 2)
	for i, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		for at := int64(0); at < fi.Size(); {
			end, err := nextCut(f, at, fi.Size())
			if err != nil {
				return err
			}
			release, err := s.acquire(gctx, end-at)
			if err != nil {
				return err
			}
			data, err := readAt(f, at, end)
			if err != nil {
				return err
			}
			key := fmt.Sprintf("%d/%016x", i, at)
			g.Go(func() error {
				defer release()
				_, err := obj.Put(gctx, key, data)
				return err
			})
			at = end
		}
	}
	return g.Wait()
}
