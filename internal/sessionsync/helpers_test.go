package sessionsync

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/objstore"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// memObjects is an in-memory object store with S3's conditional writes,
// for unit tests only (the end-to-end tests run a real S3 server). fail,
// when set, is asked before every operation and may refuse it: a network
// failure, or a kill, at that moment.
type memObjects struct {
	mu      sync.Mutex
	objects map[string]memObject
	ops     int
	fail    func(op string, n int) error
	// hang, while set, makes every request wait until its context ends:
	// a store that never answers.
	hang atomic.Bool
}

// wait is a request to a store that may hang.
func (m *memObjects) wait(ctx context.Context) error {
	if !m.hang.Load() {
		return nil
	}
	<-ctx.Done()
	return ctx.Err()
}

type memObject struct {
	body     []byte
	etag     string
	modified time.Time
}

func newMem() *memObjects { return &memObjects{objects: map[string]memObject{}} }

var errInjected = &objstore.Error{Kind: objstore.KindUnreachable, Msg: "injected: cannot reach the store"}

func (m *memObjects) step(op string) error {
	m.ops++
	if m.fail != nil {
		return m.fail(op, m.ops)
	}
	return nil
}

func (m *memObjects) Get(ctx context.Context, key string) (objstore.Object, error) {
	if err := m.wait(ctx); err != nil {
		return objstore.Object{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("get"); err != nil {
		return objstore.Object{}, err
	}
	o, ok := m.objects[key]
	if !ok {
		return objstore.Object{}, objstore.ErrNotFound
	}
	return objstore.Object{Body: slices.Clone(o.body), ETag: o.etag}, nil
}

func (m *memObjects) put(key string, body []byte) string {
	sum := md5.Sum(body)
	etag := `"` + hex.EncodeToString(sum[:]) + `"`
	m.objects[key] = memObject{body: slices.Clone(body), etag: etag, modified: time.Now()}
	return etag
}

// errLost makes a write happen and its answer be lost: the server did it,
// the client (killed, or cut off) never heard.
var errLost = &objstore.Error{Kind: objstore.KindUnreachable, Msg: "injected: the answer was lost"}

func (m *memObjects) Create(ctx context.Context, key string, body []byte) (string, error) {
	if err := m.wait(ctx); err != nil {
		return "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	err := m.step("create")
	if err != nil && err != errLost {
		return "", err
	}
	if _, ok := m.objects[key]; ok {
		return "", objstore.ErrExists
	}
	etag := m.put(key, body)
	if err != nil {
		return "", err
	}
	return etag, nil
}

func (m *memObjects) Swap(ctx context.Context, key string, body []byte, etag string) (string, error) {
	if err := m.wait(ctx); err != nil {
		return "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	err := m.step("swap")
	if err != nil && err != errLost {
		return "", err
	}
	if o, ok := m.objects[key]; !ok || o.etag != etag {
		return "", objstore.ErrChanged
	}
	newTag := m.put(key, body)
	if err != nil {
		return "", err
	}
	return newTag, nil
}

func (m *memObjects) List(ctx context.Context, prefix string) ([]objstore.Entry, error) {
	if err := m.wait(ctx); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("list"); err != nil {
		return nil, err
	}
	var out []objstore.Entry
	for k, o := range m.objects {
		if strings.HasPrefix(k, prefix) {
			out = append(out, objstore.Entry{Key: k, Size: int64(len(o.body)), ETag: o.etag, Modified: o.modified})
		}
	}
	slices.SortFunc(out, func(a, b objstore.Entry) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

func (m *memObjects) Delete(ctx context.Context, key string) error {
	if err := m.wait(ctx); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step("delete"); err != nil {
		return err
	}
	delete(m.objects, key)
	return nil
}

// all is every object's bytes, by key.
func (m *memObjects) all() map[string][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string][]byte{}
	for k, o := range m.objects {
		out[k] = o.body
	}
	return out
}

// machine is one machine's store: its CLAWDCODE_HOME and a project at the
// same path as every other machine's.
type machine struct {
	t     *testing.T
	store *storage.Store
	proj  *storage.Project
}

func newMachine(t *testing.T, root string) *machine {
	t.Helper()
	st := storage.NewStore(t.TempDir())
	p, err := st.Project(root)
	if err != nil {
		t.Fatal(err)
	}
	return &machine{t: t, store: st, proj: p}
}

func (m *machine) syncer(obj Objects, passphrase string) *Syncer {
	return New(Options{Store: m.store, Objects: obj, Location: "s3://bucket/me", Endpoint: "mem", Passphrase: passphrase})
}

// newSession writes a session of n turns (a user and an assistant record
// each) whose texts start with word.
func (m *machine) newSession(word string, n int) string {
	m.t.Helper()
	s, err := m.proj.Create(context.Background())
	if err != nil {
		m.t.Fatal(err)
	}
	defer s.Close()
	m.turns(s, word, 0, n)
	return s.ID()
}

// appendTurns opens session id and appends n more turns.
func (m *machine) appendTurns(id, word string, from, n int) {
	m.t.Helper()
	s, err := m.proj.Open(context.Background(), id)
	if err != nil {
		m.t.Fatal(err)
	}
	defer s.Close()
	m.turns(s, word, from, n)
}

func (m *machine) turns(s *storage.Session, word string, from, n int) {
	m.t.Helper()
	for i := from; i < from+n; i++ {
		for _, r := range []*storage.Record{
			{Type: storage.TypeUser, Message: &storage.Message{Role: "user", Content: word + " question " + strconv.Itoa(i)}},
			{Type: storage.TypeAssistant, Message: &storage.Message{Role: "assistant", Content: word + " answer " + strconv.Itoa(i), Model: "gpt-4o", Usage: &storage.Usage{InputTokens: 10, OutputTokens: 5}}},
		} {
			if _, err := s.Append(r); err != nil {
				m.t.Fatal(err)
			}
		}
	}
}

func (m *machine) file(id string) []byte {
	m.t.Helper()
	b, err := os.ReadFile(m.proj.Path(id))
	if err != nil {
		m.t.Fatal(err)
	}
	return b
}

// uuids are the uuids of a session's records, in file order.
func (m *machine) uuids(id string) []string {
	m.t.Helper()
	var out []string
	err := storage.ReadAll(context.Background(), m.proj.Path(id), func(_ int64, r *storage.Record) error {
		out = append(out, r.UUID)
		return nil
	}, nil)
	if err != nil {
		m.t.Fatal(err)
	}
	return out
}

func (m *machine) list() []storage.SessionInfo {
	m.t.Helper()
	l, err := m.proj.List()
	if err != nil {
		m.t.Fatal(err)
	}
	return l
}

func mustSync(t *testing.T, s *Syncer, push, pull bool) *Report {
	t.Helper()
	rep := &Report{}
	if pull {
		if err := s.Pull(context.Background(), rep); err != nil {
			t.Fatal(err)
		}
	}
	if push {
		if err := s.Push(context.Background(), rep); err != nil {
			t.Fatal(err)
		}
	}
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	return rep
}

// compact appends a compaction (boundary and summary, the last turn
// retained) to session id.
func (m *machine) compact(id string) {
	m.t.Helper()
	live, err := storage.LoadLive(context.Background(), m.proj.Path(id))
	if err != nil {
		m.t.Fatal(err)
	}
	kept := live.Records[len(live.Records)-2]
	s, err := m.proj.Open(context.Background(), id)
	if err != nil {
		m.t.Fatal(err)
	}
	defer s.Close()
	_, err = s.AppendBatch(
		&storage.Record{Type: storage.TypeSystem, Subtype: storage.SubtypeCompactBoundary, Message: &storage.Message{Role: "system", Content: "Conversation compacted"},
			CompactMetadata: &storage.CompactMetadata{Trigger: storage.TriggerAuto, PreTokens: 1000, RetainedOffset: kept.Offset, RetainedUUID: kept.Record.UUID}},
		&storage.Record{Type: storage.TypeUser, IsCompactSummary: true, Message: &storage.Message{Role: "user", Content: "the summary of it all"},
			CompactMetadata: &storage.CompactMetadata{Trigger: storage.TriggerAuto, PreTokens: 1000, PostTokens: 100}})
	if err != nil {
		m.t.Fatal(err)
	}
}
