package llmtest

import (
	"encoding/json"
	"strings"
	"testing"
)

// usageOf posts a streamed request and returns its usage chunk's cached
// tokens and prompt tokens.
func usageOf(t *testing.T, srv *Server, body string) (cached, prompt int) {
	t.Helper()
	_, events, err := postStream(t, srv.URL(), body)
	if err != nil {
		t.Fatal(err)
	}
	var u struct {
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
			Details      struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(events[len(events)-2]), &u); err != nil {
		t.Fatal(err)
	}
	return u.Usage.Details.CachedTokens, u.Usage.PromptTokens
}

func chatBody(model string, contents ...string) string {
	var msgs []string
	for _, c := range contents {
		b, _ := json.Marshal(c)
		msgs = append(msgs, `{"role":"user","content":`+string(b)+`}`)
	}
	return `{"model":"` + model + `","stream":true,"stream_options":{"include_usage":true},"messages":[` + strings.Join(msgs, ",") + `]}`
}

// TestPromptCacheMeter: the longest prefix shared with the previous
// request of the same model is reported cached, message by message.
func TestPromptCacheMeter(t *testing.T) {
	t.Parallel()
	srv := NewServer(t, Options{PromptCache: true})
	srv.SetResponder(func(Request) Reply { return Text("ok") })
	long := strings.Repeat("a long message ", 40)
	if c, _ := usageOf(t, srv, chatBody("gpt-4o", long)); c != 0 {
		t.Errorf("first request: cached %d, want 0", c)
	}
	c, p := usageOf(t, srv, chatBody("gpt-4o", long, "second"))
	want := EstimateTokens(Request{Messages: srv.Requests()[0].Messages})
	if c != want || c >= p {
		t.Errorf("second request: cached %d of %d, want %d (the first message)", c, p, want)
	}
	if got := srv.Requests()[1].CachedTokens; got != c {
		t.Errorf("Request.CachedTokens %d, the usage said %d", got, c)
	}
	if c, _ := usageOf(t, srv, chatBody("gpt-4o-mini", long, "second")); c != 0 {
		t.Errorf("another model: cached %d, want 0", c)
	}
	if c, _ := usageOf(t, srv, chatBody("gpt-4o", "changed", "second")); c != 0 {
		t.Errorf("first message changed: cached %d, want 0", c)
	}
	off := NewServer(t, Options{})
	off.SetResponder(func(Request) Reply { return Text("ok") })
	usageOf(t, off, chatBody("gpt-4o", long))
	if c, _ := usageOf(t, off, chatBody("gpt-4o", long, "x")); c != 0 {
		t.Errorf("without PromptCache: cached %d, want 0", c)
	}
}

// TestPromptCacheFreshTokens: what a request adds at its end to the
// conversation's previous request is fresh; a change earlier in it breaks
// the cache but is not fresh (the client's own doing).
func TestPromptCacheFreshTokens(t *testing.T) {
	t.Parallel()
	srv := NewServer(t, Options{PromptCache: true})
	srv.SetResponder(func(Request) Reply { return Text("ok") })
	long := strings.Repeat("a long message ", 40)
	usageOf(t, srv, chatBody("gpt-4o", long, "first"))
	usageOf(t, srv, chatBody("gpt-4o", long, "first", "second"))
	usageOf(t, srv, chatBody("gpt-4o", "cleared", "first", "second", "third"))
	usageOf(t, srv, chatBody("gpt-4o", "nothing", "held"))
	reqs := srv.Requests()
	tail := func(q Request, n int) int {
		return q.Tokens - EstimateTokens(Request{Model: q.Model, Messages: q.Messages[:len(q.Messages)-n]})
	}
	for i, want := range []int{reqs[0].Tokens, tail(reqs[1], 1), tail(reqs[2], 1), reqs[3].Tokens} {
		if got := reqs[i].FreshTokens; got != want {
			t.Errorf("request %d: fresh %d of %d, want %d", i+1, got, reqs[i].Tokens, want)
		}
	}
	if reqs[2].CachedTokens != 0 {
		t.Errorf("request 3 changed its first message: cached %d, want 0", reqs[2].CachedTokens)
	}
}
