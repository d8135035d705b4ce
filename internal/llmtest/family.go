package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Families of OpenAI-compatible servers whose metadata endpoints the
// server can imitate (Options.Family), each stating Options.Window for the
// model named in Options.FamilyModel the way that server does.
const (
	FamilyVLLM       = "vllm"       // GET /v1/models: data[].max_model_len
	FamilyLlamaCpp   = "llamacpp"   // GET /props: default_generation_settings.n_ctx
	FamilyLMStudio   = "lmstudio"   // GET /api/v0/models: data[].loaded_context_length
	FamilyOllama     = "ollama"     // POST /api/show: parameters "num_ctx N"
	FamilyOllamaInfo = "ollamainfo" // POST /api/show: model_info.<arch>.context_length only
	FamilyOpenRouter = "openrouter" // GET /v1/models: data[].context_length
)

// MetadataRequests is how many metadata requests (anything but a chat
// completion) the server has answered.
func (s *Server) MetadataRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.metadata
}

// handleMetadata answers every path that is not a chat completion: with
// the family's own shape where the family has that endpoint, else 404 as a
// server without it does.
func (s *Server) handleMetadata(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.metadata++
	fam, model, window := s.opts.Family, s.opts.FamilyModel, s.opts.Window
	if s.opts.FamilyWindow != 0 {
		window = s.opts.FamilyWindow
	}
	s.mu.Unlock()

	var body any
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models" && fam == FamilyVLLM:
		body = map[string]any{"object": "list", "data": []any{map[string]any{
			"id": model, "object": "model", "owned_by": "vllm", "max_model_len": window}}}
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models" && fam == FamilyOpenRouter:
		body = map[string]any{"data": []any{
			map[string]any{"id": "other/model", "context_length": 1000000},
			map[string]any{"id": model, "context_length": window,
				"top_provider": map[string]any{"context_length": window, "is_moderated": false}}}}
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		body = map[string]any{"object": "list", "data": []any{map[string]any{"id": model, "object": "model"}}}
	case r.Method == http.MethodGet && r.URL.Path == "/props" && fam == FamilyLlamaCpp:
		body = map[string]any{"default_generation_settings": map[string]any{"n_ctx": window, "temperature": 0.8},
			"total_slots": 1, "model_path": "/models/" + model + ".gguf"}
	case r.Method == http.MethodGet && r.URL.Path == "/api/v0/models" && fam == FamilyLMStudio:
		body = map[string]any{"object": "list", "data": []any{map[string]any{
			"id": model, "type": "llm", "state": "loaded",
			"max_context_length": 4 * window, "loaded_context_length": window}}}
	case r.Method == http.MethodPost && r.URL.Path == "/api/show" && fam == FamilyOllama:
		body = map[string]any{"parameters": fmt.Sprintf("num_ctx                        %d\nstop                           \"<|im_end|>\"", window),
			"model_info": map[string]any{"general.architecture": "qwen2", "qwen2.context_length": 32768}}
	case r.Method == http.MethodPost && r.URL.Path == "/api/show" && fam == FamilyOllamaInfo:
		body = map[string]any{"parameters": "stop \"<|im_end|>\"",
			"model_info": map[string]any{"general.architecture": "llama", "llama.context_length": window}}
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}
