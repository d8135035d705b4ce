package llm

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
)

// serverError is what a failure response says, whichever envelope the
// server used.
type serverError struct {
	status  int // HTTP status, 0 inside a 200 stream
	code    string
	typ     string
	message string
}

// parseErrorBody reads a failure's body, whichever envelope it uses:
// OpenAI's {"error":{"message","type","code"}}, Ollama's {"error":"text"}, vLLM's older flat
// {"object":"error","message":…,"code":400}, FastAPI's {"detail":…}, and
// bodies that are not JSON at all (proxies, HTML error pages).
func parseErrorBody(body []byte) serverError {
	var env struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(body, &env) == nil {
		var se serverError
		var inner struct {
			Message json.RawMessage `json:"message"`
			Type    string          `json:"type"`
			Code    json.RawMessage `json:"code"`
		}
		switch {
		case jsonString(env.Error) != "":
			se.message = jsonString(env.Error)
		case len(env.Error) > 0 && json.Unmarshal(env.Error, &inner) == nil:
			se = serverError{message: jsonText(inner.Message), typ: inner.Type, code: jsonText(inner.Code)}
		case len(env.Message) > 0:
			se = serverError{message: jsonText(env.Message), typ: env.Type, code: jsonText(env.Code)}
		case len(env.Detail) > 0:
			se.message = jsonText(env.Detail)
		}
		if se.message != "" {
			return se
		}
	}
	return serverError{message: truncate(strings.TrimSpace(string(body)), 500)}
}

func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// jsonText renders a JSON value that should be text but may be a number or
// an object, as servers disagree.
func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if s := jsonString(raw); s != "" {
		return s
	}
	return string(raw)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// overflowPhrases are the context-overflow wordings of servers that send
// no distinguishing code (vLLM, llama.cpp, Ollama, OpenRouter, and proxies
// relaying Anthropic), lower-cased. They are only consulted after the
// structured fields, and only for failures that are not auth errors.
var overflowPhrases = []string{
	"maximum context length",             // OpenAI, vLLM, OpenRouter ("this endpoint's maximum context length")
	"context length is only",             // vLLM renderer
	"maximum input length",               // vLLM renderer
	"exceeds the available context size", // llama.cpp server, Ollama on llama-server
	"larger than the max context size",   // older llama.cpp
	"exceeds the context length",         // Ollama
	"exceeds the context window",         // OpenAI Responses wording, relayed by proxies
	"prompt is too long",                 // Anthropic via compatible proxies
	"exceed context limit",               // Anthropic via compatible proxies
	"request too large",                  // OpenAI 429 when one request exceeds the TPM limit
	"middle-out",                         // OpenRouter's older overflow advice
}

func kindOf(se serverError) Kind {
	code := strings.ToLower(se.code)
	typ := strings.ToLower(se.typ)
	msg := strings.ToLower(se.message)

	if se.status == http.StatusUnauthorized || se.status == http.StatusForbidden ||
		code == "invalid_api_key" || typ == "authentication_error" {
		return KindAuth
	}
	// Overflow is decided before rate limits on purpose: a single request
	// larger than the tokens-per-minute limit (429, rate_limit_exceeded)
	// never succeeds by waiting, only by shrinking — which is exactly what
	// overflow recovery does.
	if code == "context_length_exceeded" || typ == "exceed_context_size_error" || containsAny(msg, overflowPhrases) {
		return KindOverflow
	}
	if code == "insufficient_quota" || typ == "insufficient_quota" || strings.Contains(code, "billing") ||
		strings.Contains(msg, "exceeded your current quota") || se.status == http.StatusPaymentRequired {
		return KindQuota
	}
	switch {
	case se.status == http.StatusTooManyRequests || code == "rate_limit_exceeded":
		return KindRateLimit
	case se.status >= 500 || se.status == 0 || se.status == http.StatusRequestTimeout:
		// Status 0: an error event inside a 200 stream — the server gave up
		// after accepting the request.
		return KindServer
	case se.status >= 400:
		return KindBadRequest
	}
	return KindUnknown
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// isNetworkError reports whether err comes from the connection rather than
// from anything the server said.
func isNetworkError(err error) bool {
	var netErr net.Error
	var opErr *net.OpError
	return errors.As(err, &netErr) || errors.As(err, &opErr) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE)
}
