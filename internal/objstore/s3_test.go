package objstore_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/objstore"
	"github.com/clawdcode/clawdcode/internal/s3test"
)

var server *s3test.Server

// TestMain runs one SeaweedFS for the package (every test takes a bucket
// of its own); without a built weed the tests skip, or fail under CI.
func TestMain(m *testing.M) {
	srv, stop := s3test.Shared()
	server = srv
	code := m.Run()
	stop()
	os.Exit(code)
}

func newStore(t *testing.T, endpoint, bucket string, cfg func(*objstore.Config)) *objstore.S3 {
	t.Helper()
	c := objstore.Config{Location: objstore.Location{Bucket: bucket, Prefix: "p/q"}, Endpoint: endpoint,
		AccessKey: s3test.AccessKey, SecretKey: s3test.SecretKey, Timeout: 2 * time.Second}
	if cfg != nil {
		cfg(&c)
	}
	s, err := objstore.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestConditionalWritesOnARealServer: SeaweedFS's S3 gateway honours what
// sync stands on — a Create of an existing key is ErrExists and leaves it
// alone, a Swap with a stale ETag is ErrChanged and leaves it alone, one
// with the current ETag replaces it — and reads, lists and deletes under
// the prefix.
func TestConditionalWritesOnARealServer(t *testing.T) {
	t.Parallel()
	s3test.Need(t, server)
	ctx := context.Background()
	s := newStore(t, server.Endpoint, server.Bucket(t), nil)
	if _, err := s.Get(ctx, "a"); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("get of a missing object: %v", err)
	}
	first, err := s.Create(ctx, "a", []byte("one"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, "a", []byte("two")); !errors.Is(err, objstore.ErrExists) {
		t.Fatalf("a second create: %v", err)
	}
	second, err := s.Swap(ctx, "a", []byte("three"), first)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Swap(ctx, "a", []byte("four"), first); !errors.Is(err, objstore.ErrChanged) {
		t.Fatalf("a swap with a stale ETag: %v", err)
	}
	o, err := s.Get(ctx, "a")
	if err != nil || string(o.Body) != "three" || o.ETag != second {
		t.Fatalf("get: %q %s %v, want three %s", o.Body, o.ETag, err, second)
	}
	if _, err := s.Create(ctx, "dir/b", []byte("b")); err != nil {
		t.Fatal(err)
	}
	list, err := s.List(ctx, "dir/")
	if err != nil || len(list) != 1 || list[0].Key != "dir/b" || list[0].Size != 1 || list[0].ETag == "" {
		t.Fatalf("list: %+v %v", list, err)
	}
	if err := s.Delete(ctx, "dir/b"); err != nil {
		t.Fatal(err)
	}
	if list, err := s.List(ctx, "dir/"); err != nil || len(list) != 0 {
		t.Fatalf("list after delete: %+v %v", list, err)
	}
}

// TestFailuresAreOneClearLine: wrong credentials, a missing bucket, a
// server that is down, one that answers 500 and one that does not answer
// each fail as one line that says which, of the right kind.
func TestFailuresAreOneClearLine(t *testing.T) {
	t.Parallel()
	s3test.Need(t, server)
	bucket := server.Bucket(t)
	down := s3test.NewProxy(t, server)
	down.Close()
	failing := s3test.NewProxy(t, server)
	failing.Set(s3test.Fail500)
	slow := s3test.NewProxy(t, server)
	slow.Set(s3test.Hang)
	for _, tc := range []struct {
		name string
		s    *objstore.S3
		kind objstore.Kind
		want string
	}{
		{"wrong credentials", newStore(t, server.Endpoint, bucket, func(c *objstore.Config) { c.SecretKey = "wrong" }), objstore.KindAuth, "refused the credentials"},
		{"missing bucket", newStore(t, server.Endpoint, "no-such-bucket-here", nil), objstore.KindNoBucket, `the bucket "no-such-bucket-here" does not exist`},
		{"down", newStore(t, down.URL, bucket, nil), objstore.KindUnreachable, "cannot reach"},
		{"500", newStore(t, failing.URL, bucket, nil), objstore.KindServer, "answered 500"},
		{"slow", newStore(t, slow.URL, bucket, nil), objstore.KindTimeout, "did not answer in time"},
	} {
		_, err := tc.s.Create(context.Background(), "x", []byte("x"))
		var e *objstore.Error
		if !errors.As(err, &e) || e.Kind != tc.kind || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line of kind %d saying %q", tc.name, err, tc.kind, tc.want)
		}
	}
}
