package llm_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

func TestProbeWindowFamilies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		family string
		source string
	}{
		{llmtest.FamilyVLLM, llm.SourceVLLM},
		{llmtest.FamilyOpenRouter, llm.SourceOpenRouter},
		{llmtest.FamilyLlamaCpp, llm.SourceLlamaCpp},
		{llmtest.FamilyLMStudio, llm.SourceLMStudio},
		{llmtest.FamilyOllama, llm.SourceOllamaCtx},
		{llmtest.FamilyOllamaInfo, llm.SourceOllamaMax},
	}
	for _, c := range cases {
		t.Run(c.family, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Options{Window: 12345, Family: c.family, FamilyModel: "local-model"})
			got, err := llm.ProbeWindow(context.Background(), llm.ProbeConfig{BaseURL: srv.URL()}, "local-model")
			if err != nil {
				t.Fatal(err)
			}
			if got.Tokens != 12345 || got.Source != c.source {
				t.Fatalf("ProbeWindow = %+v, want 12345 from %q", got, c.source)
			}
		})
	}
}

// TestProbeWindowImplausibleIsIgnored: a window outside 1,024 to 10 M is
// a misconfigured server's; it is reported as ignored, never as the
// window. The bounds themselves are believed.
func TestProbeWindowImplausibleIsIgnored(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ stated, tokens, ignored int }{
		{1, 0, 1}, {llm.MinWindow - 1, 0, llm.MinWindow - 1}, {llm.MinWindow, llm.MinWindow, 0},
		{llm.MaxWindow, llm.MaxWindow, 0}, {llm.MaxWindow + 1, 0, llm.MaxWindow + 1},
	} {
		srv := llmtest.NewServer(t, llmtest.Options{Family: llmtest.FamilyLlamaCpp, FamilyModel: "m", FamilyWindow: c.stated})
		got, err := llm.ProbeWindow(context.Background(), llm.ProbeConfig{BaseURL: srv.URL()}, "m")
		if err != nil || got.Tokens != c.tokens || got.Ignored != c.ignored {
			t.Errorf("stated %d: ProbeWindow = %+v, %v; want %d tokens, %d ignored", c.stated, got, err, c.tokens, c.ignored)
		}
	}
}

func TestProbeWindowOtherModelIsUnknown(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{Window: 9000, Family: llmtest.FamilyVLLM, FamilyModel: "served"})
	got, err := llm.ProbeWindow(context.Background(), llm.ProbeConfig{BaseURL: srv.URL()}, "not-served")
	if err != nil || got.Tokens != 0 {
		t.Fatalf("ProbeWindow for a model the server does not list = %+v, %v; want unknown", got, err)
	}
}

func TestProbeWindowPlainServerSaysNothing(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	got, err := llm.ProbeWindow(context.Background(), llm.ProbeConfig{BaseURL: srv.URL()}, "gpt-x")
	if err != nil || got.Tokens != 0 {
		t.Fatalf("ProbeWindow = %+v, %v; want unknown", got, err)
	}
	if n := srv.MetadataRequests(); n != 4 {
		t.Fatalf("metadata requests = %d, want one per endpoint (4)", n)
	}
}

// A server that never answers the metadata endpoints costs the timeout,
// not more.
func TestProbeWindowHangingServerIsBounded(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); hang.Close() })
	start := time.Now()
	got, err := llm.ProbeWindow(context.Background(), llm.ProbeConfig{BaseURL: hang.URL + "/v1", Timeout: 200 * time.Millisecond}, "m")
	if err != nil || got.Tokens != 0 {
		t.Fatalf("ProbeWindow = %+v, %v; want unknown", got, err)
	}
	// The server never answers: any end within a minute is the
	// timeout's, and a loaded machine is far within that.
	if d := time.Since(start); d > time.Minute {
		t.Fatalf("probe of a hanging server took %v, want about its 200ms timeout", d)
	}
}

// BenchmarkProbeWindowNoEndpoints is what asking costs against a server
// that has none of the metadata endpoints (404 at once): the price a
// plain OpenAI-compatible proxy pays, once per base URL and model.
func BenchmarkProbeWindowNoEndpoints(b *testing.B) {
	srv := llmtest.NewServer(b, llmtest.Options{})
	cfg := llm.ProbeConfig{BaseURL: srv.URL()}
	for b.Loop() {
		if w, err := llm.ProbeWindow(context.Background(), cfg, "m"); err != nil || w.Tokens != 0 {
			b.Fatal(w, err)
		}
	}
}
