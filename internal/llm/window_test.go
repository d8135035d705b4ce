package llm

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
)

// fixtureTemplate matches the placeholders of the server source quoted in
// the fixtures: Python f-string fields and printf verbs.
var fixtureTemplate = regexp.MustCompile(`\{[^{}]*\}|%d`)

// fixtureMessages collects every error text of provider_error_bodies.json,
// keyed "section[i]/field[j]". Templates quoted from server source get
// their placeholders filled with 1001, 1002, … in order.
func fixtureMessages(t *testing.T) map[string]string {
	t.Helper()
	raw := fixtures.Read(t, "errors", "provider_error_bodies.json")
	var file map[string]json.RawMessage
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for section, arr := range file {
		if strings.HasPrefix(section, "_") {
			continue
		}
		var entries []map[string]json.RawMessage
		if err := json.Unmarshal(arr, &entries); err != nil {
			t.Fatalf("%s: %v", section, err)
		}
		for i, entry := range entries {
			for field, v := range entry {
				for j, text := range fixtureTexts(field, v) {
					out[fmt.Sprintf("%s[%d]/%s[%d]", section, i, field, j)] = text
				}
			}
		}
	}
	return out
}

func fixtureTexts(field string, v json.RawMessage) []string {
	var strs []string
	template := false
	switch field {
	case "body", "body_shape_seen_in_tests", "body_fields_quoted":
		var b struct {
			Message string
			Error   struct{ Message string }
		}
		if json.Unmarshal(v, &b) == nil {
			strs = append(strs, b.Message, b.Error.Message)
		}
	case "quoted", "quoted_variants", "other_variants", "error_variants", "observed", "other_observed_variant", "older_still":
		template = field == "older_still"
		var one string
		if json.Unmarshal(v, &one) == nil {
			strs = append(strs, one)
		} else {
			_ = json.Unmarshal(v, &strs)
		}
	case "source_code_quote":
		template = true
		var src string
		_ = json.Unmarshal(v, &src)
		for _, m := range regexp.MustCompile(`f"((?:[^"\\]|\\.)*)"`).FindAllStringSubmatch(src, -1) {
			strs = append(strs, m[1])
		}
	}
	var out []string
	for _, s := range strs {
		if s == "" {
			continue
		}
		if !template {
			out = append(out, s)
			continue
		}
		n := 1000
		out = append(out, fixtureTemplate.ReplaceAllStringFunc(s, func(string) string {
			n++
			return strconv.Itoa(n)
		}))
	}
	return out
}

// TestStatedWindowOfEveryFixtureMessage reads every error text in the
// fixtures: the overflow messages that state a window yield it, and no
// other text (rate limits with their "Limit 30000", quotas, tool-order
// errors, overflows that state no window) yields one.
func TestStatedWindowOfEveryFixtureMessage(t *testing.T) {
	t.Parallel()
	want := map[string]int{
		"openai[0]/body[0]":   4097,
		"openai[0]/quoted[0]": 4097,
		"openai[1]/quoted[0]": 128000,
		"openai[2]/body[0]":   128000,
		"openai[2]/quoted[0]": 128000,
		"openai[3]/quoted[0]": 4097,
		"context_overflow_other_servers[0]/source_code_quote[0]":      1001, // {self.max_model_len}
		"context_overflow_other_servers[0]/source_code_quote[1]":      1001,
		"context_overflow_other_servers[0]/observed[0]":               8192,
		"context_overflow_other_servers[1]/body[0]":                   4096, // vLLM max_tokens check
		"context_overflow_other_servers[2]/source_code_quote[0]":      1003, // {self.max_total_tokens}
		"context_overflow_other_servers[2]/source_code_quote[1]":      1003,
		"context_overflow_other_servers[2]/other_observed_variant[0]": 8192,
		"context_overflow_other_servers[4]/body[0]":                   32768, // llama.cpp
		"context_overflow_other_servers[5]/older_still[0]":            1002,  // input (%d) … max context size (%d)
		"context_overflow_other_servers[6]/error_variants[1]":         4096,  // Ollama on llama-server
		"context_overflow_other_servers[7]/body[0]":                   16384, // OpenRouter
		"context_overflow_other_servers[7]/other_variants[0]":         65536,
		"context_overflow_other_servers[7]/other_variants[1]":         131072,
		"context_overflow_other_servers[8]/quoted[0]":                 200000, // Anthropic wording
		"context_overflow_other_servers[8]/quoted[1]":                 200000,
	}
	msgs := fixtureMessages(t)
	for key := range want {
		if _, ok := msgs[key]; !ok {
			t.Errorf("%s is not in the fixture file", key)
		}
	}
	for key, text := range msgs {
		got, ok := statedWindow(text)
		if w, stated := want[key]; stated {
			if !ok || got != w {
				t.Errorf("%s: statedWindow = %d, %v; want %d\n%s", key, got, ok, w, text)
			}
		} else if ok {
			t.Errorf("%s: statedWindow = %d from a text that states no window\n%s", key, got, text)
		}
	}
}

func TestStatedWindowReadsTheServersMessage(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("model call: %w", &Error{Kind: KindOverflow, Message: "This model's maximum context length is 9088 tokens. However, your messages resulted in 10048 tokens."})
	if w, ok := StatedWindow(err); !ok || w != 9088 {
		t.Fatalf("StatedWindow = %d, %v; want 9088", w, ok)
	}
	if _, ok := StatedWindow(nil); ok {
		t.Fatal("StatedWindow(nil) states a window")
	}
}
