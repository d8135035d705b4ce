package llm

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestKeepAlivesDoNotHoldTheIdleTimer: a server that answers 200 and then
// sends only keep-alives — SSE comments, and on the Responses API "ping"
// events too — never replies; the idle timeout counts content, so the
// attempt ends after IdleTimeout instead of running to MaxReplyTime (30
// minutes by default).
func TestKeepAlivesDoNotHoldTheIdleTimer(t *testing.T) {
	t.Parallel()
	for _, wire := range []string{WireChat, WireResponses} {
		t.Run(wire, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				tick := time.NewTicker(5 * time.Millisecond)
				defer tick.Stop()
				for {
					keepAlive := ": keep-alive\n\n"
					if wire == WireResponses {
						keepAlive += "event: ping\ndata: {\"type\":\"ping\"}\n\n"
					}
					if _, err := io.WriteString(w, keepAlive); err != nil {
						return
					}
					w.(http.Flusher).Flush()
					select {
					case <-r.Context().Done():
						return
					case <-tick.C:
					}
				}
			}))
			t.Cleanup(srv.Close)
			c, _ := newTestClient(t, srv.URL, func(c *Config) {
				c.WireAPI = wire
				c.IdleTimeout = 100 * time.Millisecond
				c.MaxReplyTime = 10 * time.Second // what the keep-alives would reach without the fix
				c.Retry.MaxAttempts = 1
			})
			le, _ := streamErr(t, c, userRequest("hi"))
			if le.Kind != KindNetwork || !errors.Is(le, ErrIdleTimeout) {
				t.Fatalf("got %v: %q; want the idle timeout", le.Kind, le.Error())
			}
		})
	}
}
