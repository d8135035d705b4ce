package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
)

// errorVariant is one failure response rebuilt from an entry of
// provider_error_bodies.json.
type errorVariant struct {
	label  string
	status int
	body   []byte
}

// wantKinds says what every entry of the fixture file must classify as,
// by section and position. An entry missing here fails the test, so a new
// fixture cannot go unclassified.
var wantKinds = map[string]Kind{
	"openai[0]":  KindOverflow,   // context_length_exceeded (messages only)
	"openai[1]":  KindOverflow,   // 128k model, quoted
	"openai[2]":  KindOverflow,   // with tools/functions
	"openai[3]":  KindOverflow,   // older "you requested … in the completion" wording
	"openai[4]":  KindBadRequest, // tool without preceding tool_calls ("preceeding")
	"openai[5]":  KindBadRequest, // same, "preceding"
	"openai[6]":  KindBadRequest, // assistant tool_calls not answered
	"openai[7]":  KindAuth,       // 401 invalid api key
	"openai[8]":  KindRateLimit,  // 429 TPM
	"openai[9]":  KindRateLimit,  // 429 rate_limit_exceeded body shape
	"openai[10]": KindOverflow,   // 429 request larger than the TPM limit: only shrinking helps
	"openai[11]": KindQuota,      // 429 insufficient_quota
	"openai[12]": KindServer,     // 500
	"openai[13]": KindServer,     // 503 overloaded
	"openai[14]": KindOverflow,   // Responses API wording
	"deepseek_and_other_openai_compatible_tool_order_errors[0]": KindBadRequest,
	"deepseek_and_other_openai_compatible_tool_order_errors[1]": KindBadRequest,
	"deepseek_and_other_openai_compatible_tool_order_errors[2]": KindBadRequest,
	"deepseek_and_other_openai_compatible_tool_order_errors[3]": KindBadRequest,
	"context_overflow_other_servers[0]":                         KindOverflow, // vLLM <= 0.10
	"context_overflow_other_servers[1]":                         KindOverflow, // vLLM max_tokens check, integer code
	"context_overflow_other_servers[2]":                         KindOverflow, // vLLM renderer
	"context_overflow_other_servers[3]":                         KindOverflow, // vLLM flat envelope
	"context_overflow_other_servers[4]":                         KindOverflow, // llama.cpp
	"context_overflow_other_servers[5]":                         KindOverflow, // llama.cpp older
	"context_overflow_other_servers[6]":                         KindOverflow, // Ollama error variants
	"context_overflow_other_servers[6]/envelope":                KindBadRequest,
	"context_overflow_other_servers[7]":                         KindOverflow, // OpenRouter
	"context_overflow_other_servers[8]":                         KindOverflow, // Anthropic wording via proxies
}

func TestClassifyEveryFixtureErrorBody(t *testing.T) {
	t.Parallel()
	raw := fixtures.Read(t, "errors", "provider_error_bodies.json")
	var file map[string]json.RawMessage
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for section, arr := range file {
		if strings.HasPrefix(section, "_") {
			continue
		}
		var entries []map[string]json.RawMessage
		if err := json.Unmarshal(arr, &entries); err != nil {
			t.Fatalf("%s: %v", section, err)
		}
		for i, entry := range entries {
			key := fmt.Sprintf("%s[%d]", section, i)
			variants := errorVariants(t, entry)
			if len(variants) == 0 {
				t.Errorf("%s: no error response could be built from the entry", key)
			}
			for _, v := range variants {
				want, ok := wantKinds[key+"/"+v.label]
				if !ok {
					want, ok = wantKinds[key]
				}
				if !ok {
					t.Errorf("%s: no expected kind in wantKinds", key)
					continue
				}
				seen[key] = true
				t.Run(key+"/"+v.label, func(t *testing.T) {
					t.Parallel()
					checkClassified(t, v, want)
				})
			}
		}
	}
	for key := range wantKinds {
		if base, _, _ := strings.Cut(key, "/"); !seen[base] {
			t.Errorf("wantKinds has %s, which is not in the fixture file", key)
		}
	}
}

func checkClassified(t *testing.T, v errorVariant, want Kind) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(v.status)
		_, _ = w.Write(v.body)
	}))
	defer srv.Close()
	c, _ := newTestClient(t, srv.URL, func(c *Config) { c.Retry.MaxAttempts = 1 })
	resp, err := c.Stream(context.Background(), userRequest("hi"), nil)
	var le *Error
	if resp != nil || !errors.As(err, &le) {
		t.Fatalf("status %d body %s: got (%v, %v), want an *Error", v.status, v.body, resp, err)
	}
	if le.Kind != want {
		t.Errorf("status %d body %s: kind %v, want %v (%v)", v.status, v.body, le.Kind, want, le)
	}
	if le.StatusCode != v.status {
		t.Errorf("StatusCode = %d, want %d", le.StatusCode, v.status)
	}
	if IsOverflow(err) != (want == KindOverflow) {
		t.Errorf("IsOverflow = %v for kind %v", IsOverflow(err), le.Kind)
	}
	if le.Message == "" || strings.Contains(le.Error(), "status code:") {
		t.Errorf("Error() = %q: want the server's own message, not go-openai's wrapper", le.Error())
	}
	if want == KindAuth && !strings.Contains(le.Error(), "OPENAI_API_KEY") {
		t.Errorf("auth error %q does not name OPENAI_API_KEY", le.Error())
	}
}

var (
	pythonFString = regexp.MustCompile(`f"((?:[^"\\]|\\.)*)"`)
	placeholder   = regexp.MustCompile(`\{[^}]*\}`)
	trailingNote  = regexp.MustCompile(`\s{2,}\(.*\)\s*$`)
	jsonObject    = regexp.MustCompile(`\{"error":.*\}`)
)

// errorVariants rebuilds the responses an entry describes: its JSON body,
// and for the text-only forms (quoted messages, message variants, server
// source code) an OpenAI-style body carrying that text.
func errorVariants(t *testing.T, entry map[string]json.RawMessage) []errorVariant {
	status := http.StatusBadRequest
	if s, ok := entry["http_status"]; ok {
		_ = json.Unmarshal(s, &status)
	}
	var out []errorVariant
	addBody := func(label string, body any) {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, errorVariant{label: label, status: status, body: b})
	}
	addMessage := func(label, msg string) {
		msg = strings.TrimSpace(trailingNote.ReplaceAllString(msg, ""))
		if m := jsonObject.FindString(msg); m != "" && json.Valid([]byte(m)) {
			out = append(out, errorVariant{label: label, status: status, body: []byte(m)})
			return
		}
		e := map[string]any{"message": msg, "type": "invalid_request_error"}
		if c, ok := entry["code"]; ok {
			e["code"] = c
		}
		addBody(label, map[string]any{"error": e})
	}
	strs := func(key string) []string {
		var one string
		if json.Unmarshal(entry[key], &one) == nil {
			return []string{one}
		}
		var many []string
		_ = json.Unmarshal(entry[key], &many)
		return many
	}

	if b, ok := entry["body"]; ok {
		out = append(out, errorVariant{label: "body", status: status, body: b})
	}
	if f, ok := entry["body_fields_quoted"]; ok {
		addBody("fields", map[string]json.RawMessage{"error": f})
	}
	if b, ok := entry["body_shape_seen_in_tests"]; ok {
		out = append(out, errorVariant{label: "shape", status: status, body: b})
	}
	if _, ok := entry["body"]; !ok {
		for i, q := range strs("quoted") {
			addMessage(fmt.Sprintf("quoted%d", i), q)
		}
	}
	for _, key := range []string{"quoted_variants", "other_variants", "error_variants", "older_still", "observed", "other_observed_variant"} {
		for i, q := range strs(key) {
			addMessage(fmt.Sprintf("%s%d", key, i), q)
		}
	}
	for i, q := range strs("source_code_quote") {
		for j, m := range pythonFString.FindAllStringSubmatch(q, -1) {
			addMessage(fmt.Sprintf("source%d.%d", i, j), placeholder.ReplaceAllString(m[1], "4096"))
		}
	}
	if notes := strs("notes"); len(out) == 0 && len(notes) > 0 && strings.Contains(notes[0], `"object":"error"`) {
		// vLLM's older flat envelope, which go-openai cannot decode.
		addBody("flat", map[string]any{"object": "error", "message": "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens in the messages, Please reduce the length of the messages.", "type": "BadRequestError", "param": nil, "code": 400})
	}
	if env := strs("ollama_error_envelope"); len(env) > 0 {
		if m := regexp.MustCompile(`\{"error":"[^"<]*"\}`).FindString(env[0]); m != "" {
			out = append(out, errorVariant{label: "envelope", status: http.StatusNotFound, body: []byte(m)})
		}
	}
	return out
}
