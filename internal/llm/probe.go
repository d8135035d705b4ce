package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// DefaultProbeTimeout bounds the whole window probe: a server that answers
// the metadata endpoints at all answers them in milliseconds, and one that
// hangs must not delay the first request by more than this.
const DefaultProbeTimeout = 1500 * time.Millisecond

// probeBodyLimit caps what a metadata answer may weigh; OpenRouter's model
// list, the largest of them, is a few hundred KB.
const probeBodyLimit = 8 << 20

// Window sources, as /context names them.
const (
	SourceVLLM       = "vLLM /models max_model_len"
	SourceOpenRouter = "OpenRouter /models context_length"
	SourceLlamaCpp   = "llama.cpp /props n_ctx"
	SourceLMStudio   = "LM Studio /api/v0/models loaded_context_length"
	SourceOllamaCtx  = "Ollama /api/show num_ctx"
	SourceOllamaMax  = "Ollama /api/show context_length"
)

// ServerWindow is what a server says about a model's context window.
type ServerWindow struct {
	Tokens int    // 0 when no endpoint said
	Source string // one of the Source constants, "" when Tokens is 0
	// Ignored is a window an endpoint stated outside PlausibleWindow's
	// range (0 when none): not believed, so Tokens is not it.
	Ignored int
}

// ProbeConfig is where to ask.
type ProbeConfig struct {
	BaseURL    string // as for Config; DefaultBaseURL when empty
	APIKey     string
	HTTPClient *http.Client  // nil = a default client
	Timeout    time.Duration // 0 = DefaultProbeTimeout
}

// ProbeWindow asks the server for the context window of model through the
// metadata endpoints of the servers clawdcode knows (CONTRACT §8), all at
// once and bounded by cfg.Timeout as a whole:
//
//   - GET <base>/models: vLLM's max_model_len, OpenRouter's context_length
//   - GET <root>/props: llama.cpp's default_generation_settings.n_ctx
//   - GET <root>/api/v0/models: LM Studio's loaded_context_length
//   - POST <root>/api/show: Ollama's num_ctx parameter, else the model's
//     <arch>.context_length
//
// where <root> is the base URL without a trailing /v1. When several
// answer, the most specific wins in that order of trust: a window the
// server was loaded with (vLLM, llama.cpp, LM Studio, Ollama's num_ctx)
// before a model's trained maximum. A window outside PlausibleWindow's
// range is not believed (it is reported in Ignored). A server that has
// none of these endpoints yields a zero ServerWindow and no error; the
// error is only for a ctx that ended.
func ProbeWindow(ctx context.Context, cfg ProbeConfig, model string) (ServerWindow, error) {
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if base == "" {
		base = DefaultBaseURL
	}
	if _, err := url.Parse(base); err != nil {
		return ServerWindow{}, fmt.Errorf("probe window: base URL %q: %w", base, err)
	}
	root := strings.TrimSuffix(base, "/v1")
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	p := prober{hc: hc, key: cfg.APIKey, model: model}
	probes := []func(context.Context) ServerWindow{
		func(ctx context.Context) ServerWindow { return p.models(ctx, base+"/models") },
		func(ctx context.Context) ServerWindow { return p.llamaProps(ctx, root+"/props") },
		func(ctx context.Context) ServerWindow { return p.lmStudio(ctx, root+"/api/v0/models") },
		func(ctx context.Context) ServerWindow { return p.ollamaShow(ctx, root+"/api/show") },
	}
	results := make(chan ServerWindow, len(probes))
	for _, probe := range probes {
		go func() { results <- probe(ctx) }()
	}
	var best ServerWindow
	for range probes {
		select {
		case w := <-results:
			switch {
			case w.Tokens > 0 && !PlausibleWindow(w.Tokens):
				best.Ignored = w.Tokens
			case better(w, best):
				best.Tokens, best.Source = w.Tokens, w.Source
			}
		case <-ctx.Done():
			if best.Tokens > 0 {
				return best, nil
			}
			if err := context.Cause(ctx); err != nil && ctx.Err() != context.DeadlineExceeded {
				return ServerWindow{}, err
			}
			return best, nil
		}
	}
	return best, nil
}

// sourceRank orders the sources by how directly they state the window the
// server enforces: a loaded window beats a model's trained maximum.
var sourceRank = map[string]int{
	SourceVLLM:       5,
	SourceLlamaCpp:   4,
	SourceLMStudio:   3,
	SourceOllamaCtx:  2,
	SourceOpenRouter: 1,
	SourceOllamaMax:  1,
}

func better(w, than ServerWindow) bool {
	if w.Tokens <= 0 {
		return false
	}
	return than.Tokens <= 0 || sourceRank[w.Source] > sourceRank[than.Source]
}

type prober struct {
	hc    *http.Client
	key   string
	model string
}

// fetch GETs (or POSTs body to) u and decodes a JSON answer into v; any
// failure is simply "this server does not say".
func (p prober) fetch(ctx context.Context, method, u string, body any, v any) bool {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return false
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return false
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if p.key != "" {
		req.Header.Set("Authorization", "Bearer "+p.key)
	}
	resp, err := p.hc.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return false
	}
	return json.NewDecoder(io.LimitReader(resp.Body, probeBodyLimit)).Decode(v) == nil
}

// sameModel matches a listed model id against the configured name; some
// servers list a path or an OpenRouter-style "vendor/name".
func sameModel(listed, model string) bool {
	listed, model = strings.TrimSpace(listed), strings.TrimSpace(model)
	return listed != "" && strings.EqualFold(listed, model)
}

func (p prober) models(ctx context.Context, u string) ServerWindow {
	var list struct {
		Data []struct {
			ID            string `json:"id"`
			MaxModelLen   int    `json:"max_model_len"`
			ContextLength int    `json:"context_length"`
			TopProvider   struct {
				ContextLength int `json:"context_length"`
			} `json:"top_provider"`
		} `json:"data"`
	}
	if !p.fetch(ctx, http.MethodGet, u, nil, &list) {
		return ServerWindow{}
	}
	for _, m := range list.Data {
		if !sameModel(m.ID, p.model) {
			continue
		}
		switch {
		case m.MaxModelLen > 0:
			return ServerWindow{Tokens: m.MaxModelLen, Source: SourceVLLM}
		case m.TopProvider.ContextLength > 0:
			return ServerWindow{Tokens: m.TopProvider.ContextLength, Source: SourceOpenRouter}
		case m.ContextLength > 0:
			return ServerWindow{Tokens: m.ContextLength, Source: SourceOpenRouter}
		}
	}
	return ServerWindow{}
}

func (p prober) llamaProps(ctx context.Context, u string) ServerWindow {
	var props struct {
		NCtx                      int `json:"n_ctx"`
		DefaultGenerationSettings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if !p.fetch(ctx, http.MethodGet, u, nil, &props) {
		return ServerWindow{}
	}
	// llama.cpp serves one model (whatever name a request gives), so its
	// window applies to any.
	if n := props.DefaultGenerationSettings.NCtx; n > 0 {
		return ServerWindow{Tokens: n, Source: SourceLlamaCpp}
	}
	if props.NCtx > 0 {
		return ServerWindow{Tokens: props.NCtx, Source: SourceLlamaCpp}
	}
	return ServerWindow{}
}

func (p prober) lmStudio(ctx context.Context, u string) ServerWindow {
	var list struct {
		Data []struct {
			ID                  string `json:"id"`
			LoadedContextLength int    `json:"loaded_context_length"`
		} `json:"data"`
	}
	if !p.fetch(ctx, http.MethodGet, u, nil, &list) {
		return ServerWindow{}
	}
	for _, m := range list.Data {
		if sameModel(m.ID, p.model) && m.LoadedContextLength > 0 {
			return ServerWindow{Tokens: m.LoadedContextLength, Source: SourceLMStudio}
		}
	}
	return ServerWindow{}
}

// numCtxParam finds "num_ctx <n>" in Ollama's Modelfile-style parameters.
var numCtxParam = regexp.MustCompile(`(?m)^\s*num_ctx\s+(\d+)\s*$`)

func (p prober) ollamaShow(ctx context.Context, u string) ServerWindow {
	var show struct {
		Parameters string         `json:"parameters"`
		ModelInfo  map[string]any `json:"model_info"`
	}
	if !p.fetch(ctx, http.MethodPost, u, map[string]string{"model": p.model}, &show) {
		return ServerWindow{}
	}
	if sub := numCtxParam.FindStringSubmatch(show.Parameters); sub != nil {
		if n, err := strconv.Atoi(sub[1]); err == nil && n > 0 {
			return ServerWindow{Tokens: n, Source: SourceOllamaCtx}
		}
	}
	arch, _ := show.ModelInfo["general.architecture"].(string)
	if arch != "" {
		if n, ok := show.ModelInfo[arch+".context_length"].(float64); ok && n > 0 {
			return ServerWindow{Tokens: int(n), Source: SourceOllamaMax}
		}
	}
	return ServerWindow{}
}
