package llm

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/fixtures"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// readFixtureStream returns a fixture as the bytes a server would send:
// .sse files verbatim; .jsonl files (raw JSON per line) as data lines,
// followed by [DONE] when withDone.
func readFixtureStream(t testing.TB, name string, withDone bool) []byte {
	t.Helper()
	raw := fixtures.Read(t, "sse", name)
	if filepath.Ext(name) != ".jsonl" {
		return raw
	}
	var b bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		b.WriteString("data: ")
		b.Write(sc.Bytes())
		b.WriteString("\n\n")
	}
	if withDone {
		b.WriteString("data: [DONE]\n\n")
	}
	return b.Bytes()
}

// rawServer answers every request with the next of bodies (the last one
// repeats) as a 200 event stream, and keeps the request bodies.
type rawServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newRawServer(t testing.TB, bodies ...[]byte) *rawServer {
	t.Helper()
	rs := &rawServer{}
	rs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rs.mu.Lock()
		n := len(rs.bodies)
		rs.bodies = append(rs.bodies, body)
		rs.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(bodies[min(n, len(bodies)-1)])
	}))
	t.Cleanup(rs.Close)
	return rs
}

func (rs *rawServer) requests() [][]byte {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([][]byte(nil), rs.bodies...)
}

// sleepRecorder replaces RetryPolicy.Sleep so tests never wait and can
// assert the delays chosen.
type sleepRecorder struct {
	mu     sync.Mutex
	delays []time.Duration
}

func (s *sleepRecorder) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.delays = append(s.delays, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleepRecorder) recorded() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.delays...)
}

// newTestClient is a client of baseURL whose retries only record their
// delays. Its idle timeout is a safety net a loaded machine never reaches
// before a local server answers; a test of the idle timeout sets its own.
func newTestClient(t testing.TB, baseURL string, mod ...func(*Config)) (*Client, *sleepRecorder) {
	t.Helper()
	rec := &sleepRecorder{}
	cfg := Config{BaseURL: baseURL, Retry: RetryPolicy{Sleep: rec.sleep}, IdleTimeout: time.Minute}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, rec
}

func userRequest(text string) Request {
	return Request{Model: "gpt-4o", Messages: []chat.Message{{Role: chat.RoleUser, Content: text}}}
}
