package llmtest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"
	"unicode/utf8"
)

// completion renders one Reply as OpenAI would send it.
type completion struct {
	id           string
	model        string
	created      int64
	reply        Reply
	promptTokens int
	cachedTokens int
}

func (c completion) finishReason() string {
	switch {
	case c.reply.FinishReason != "":
		return c.reply.FinishReason
	case len(c.reply.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func (c completion) usage() map[string]any {
	u := Usage{PromptTokens: c.promptTokens, CompletionTokens: completionTokens(c.reply), CachedTokens: c.cachedTokens}
	if c.reply.Usage != nil {
		u = *c.reply.Usage
	}
	return map[string]any{
		"prompt_tokens":             u.PromptTokens,
		"completion_tokens":         u.CompletionTokens,
		"total_tokens":              u.PromptTokens + u.CompletionTokens,
		"prompt_tokens_details":     map[string]int{"cached_tokens": u.CachedTokens, "audio_tokens": 0},
		"completion_tokens_details": map[string]int{"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
	}
}

// chunks are the stream's data payloads, [DONE] excluded.
func (c completion) chunks(includeUsage bool) [][]byte {
	var out [][]byte
	add := func(choices []any, usage any) {
		m := map[string]any{
			"id": c.id, "object": "chat.completion.chunk", "created": c.created,
			"model": c.model, "system_fingerprint": "fp_llmtest", "choices": choices,
		}
		if includeUsage {
			m["usage"] = usage
		}
		b, _ := json.Marshal(m)
		out = append(out, b)
	}
	choice := func(delta map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}
	}

	// OpenAI opens with the role; content is "" for a text reply and null
	// when the reply is only tool calls.
	var first any
	if c.reply.Text != "" || len(c.reply.ToolCalls) == 0 {
		first = ""
	}
	add(choice(map[string]any{"role": "assistant", "content": first, "refusal": nil}, nil), nil)
	for _, piece := range splitPieces(c.reply.Reasoning, 24) {
		add(choice(map[string]any{"content": "", "reasoning_content": piece}, nil), nil)
	}
	for _, piece := range splitPieces(c.reply.Text, 24) {
		add(choice(map[string]any{"content": piece}, nil), nil)
	}
	for i, tc := range c.reply.ToolCalls {
		add(choice(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": tc.ID, "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": ""},
		}}}, nil), nil)
		for _, piece := range splitPieces(tc.Arguments, 8) {
			add(choice(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": piece},
			}}}, nil), nil)
		}
	}
	add(choice(map[string]any{}, c.finishReason()), nil)
	if includeUsage {
		add([]any{}, c.usage())
	}
	return out
}

func (c completion) writeStream(ctx context.Context, w http.ResponseWriter, includeUsage bool) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	for range c.reply.KeepAlives {
		_, _ = io.WriteString(w, ": OPENROUTER PROCESSING\n\n")
	}
	flush()
	chunks := c.chunks(includeUsage)
	for i := 0; ; i++ {
		if c.reply.StreamError != "" && i == min(c.reply.ErrorAfter, len(chunks)) {
			_, _ = io.WriteString(w, `data: {"error":`+c.reply.StreamError+"}\n\n")
			_, _ = io.WriteString(w, "data: [DONE]\n\n")
			flush()
			return
		}
		if c.reply.Cut && i == min(c.reply.CutAfter, len(chunks)) {
			flush()
			// Abort the connection without ending the chunked body, so the
			// client sees a broken transfer, not a clean end.
			panic(http.ErrAbortHandler)
		}
		if i == len(chunks) {
			break
		}
		if i == c.reply.PauseAfter && i > 0 && !c.pause(ctx) {
			return // the client went away
		}
		_, _ = w.Write([]byte("data: "))
		_, _ = w.Write(chunks[i])
		_, _ = io.WriteString(w, "\n\n")
		flush()
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	flush()
}

// pause holds the stream for Pause, or until Resume is closed; false when
// the client went away meanwhile.
func (c completion) pause(ctx context.Context) bool {
	var timeout <-chan time.Time
	if c.reply.Pause > 0 {
		t := time.NewTimer(c.reply.Pause)
		defer t.Stop()
		timeout = t.C
	} else if c.reply.Resume == nil {
		return true
	}
	select {
	case <-timeout:
	case <-c.reply.Resume:
	case <-ctx.Done():
		return false
	}
	return true
}

// writeEndless streams the reply's text as content chunks, again and
// again, until a write fails, the client goes away or done is closed.
func (c completion) writeEndless(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	piece := c.reply.Text
	if piece == "" {
		piece = "All work and no play makes a stream that never ends. "
	}
	chunk := func(delta map[string]any) []byte {
		b, _ := json.Marshal(map[string]any{
			"id": c.id, "object": "chat.completion.chunk", "created": c.created, "model": c.model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": nil}},
		})
		return append(append([]byte("data: "), b...), '\n', '\n')
	}
	role := chunk(map[string]any{"role": "assistant", "content": ""})
	content := chunk(map[string]any{"content": piece})
	if _, err := w.Write(role); err != nil {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-done:
			return
		default:
		}
		if _, err := w.Write(content); err != nil {
			return
		}
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
}

func (c completion) writeJSON(w http.ResponseWriter) {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if c.reply.Text != "" || len(c.reply.ToolCalls) == 0 {
		msg["content"] = c.reply.Text
	}
	if len(c.reply.ToolCalls) > 0 {
		var calls []any
		for _, tc := range c.reply.ToolCalls {
			calls = append(calls, map[string]any{"id": tc.ID, "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}})
		}
		msg["tool_calls"] = calls
	}
	b, _ := json.Marshal(map[string]any{
		"id": c.id, "object": "chat.completion", "created": c.created, "model": c.model,
		"system_fingerprint": "fp_llmtest",
		"choices":            []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": c.finishReason()}},
		"usage":              c.usage(),
	})
	w.Header().Set("Content-Type", "application/json")
	if c.reply.Cut {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b[:len(b)/2])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler)
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// splitPieces cuts s the way a model's tokens arrive: a new piece at each
// word start, and no piece longer than max bytes (split on rune bounds).
func splitPieces(s string, limit int) []string {
	var out []string
	start := 0
	prevSpace := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		space := r == ' ' || r == '\n'
		if i > start && ((space && !prevSpace) || i+size-start > limit) {
			out = append(out, s[start:i])
			start = i
		}
		prevSpace = space
		i += size
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
