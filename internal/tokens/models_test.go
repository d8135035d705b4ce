package tokens

import "testing"

func TestWindowFor(t *testing.T) {
	t.Parallel()
	tests := map[string]int{
		"gpt-4o":                 128000,
		"gpt-4o-mini":            128000,
		"gpt-4o-2024-08-06":      128000,
		"gpt-4.1":                1047576,
		"gpt-4.1-nano":           1047576,
		"gpt-4-turbo":            128000,
		"gpt-4":                  8192,
		"gpt-4-0613":             8192,
		"gpt-4-32k":              32768,
		"gpt-3.5-turbo":          16385,
		"o1":                     200000,
		"o1-mini":                128000,
		"o3":                     200000,
		"o3-mini":                200000,
		"o4-mini":                200000,
		"gpt-5":                  400000,
		"gpt-5-mini":             400000,
		"openai/gpt-4o":          128000,
		" GPT-4.1 ":              1047576,
		"llama3.1:8b":            128000,
		"qwen2.5-coder:32b":      128000,
		"":                       128000,
		"gpt-3.5-turbo-instruct": 4096,
	}
	for model, want := range tests {
		if got := WindowFor(model); got != want {
			t.Errorf("WindowFor(%q) = %d, want %d", model, got, want)
		}
	}
}

// TestOneModelsTable: the window and the encoding of a model come from
// the same row, so a model switch changes both (before, the window table
// lived in cli and /model gpt-4 changed the tokenizer but not the window).
func TestOneModelsTable(t *testing.T) {
	t.Parallel()
	for model, want := range map[string]Model{
		"gpt-4":         {Cl100kBase, 8192, true},
		"gpt-4o":        {O200kBase, 128000, true},
		"gpt-35-turbo":  {Cl100kBase, 16385, true},
		"o1":            {O200kBase, 200000, true},
		"o1x":           {O200kBase, FallbackWindow, false},
		"llama3.1:8b":   {O200kBase, FallbackWindow, false},
		"openai/gpt-4o": {O200kBase, 128000, true},
	} {
		if got := Lookup(model); got != want {
			t.Errorf("Lookup(%q) = %+v, want %+v", model, got, want)
		}
		if EncodingFor(model) != want.Encoding || WindowFor(model) != want.Window {
			t.Errorf("%q: EncodingFor/WindowFor disagree with Lookup", model)
		}
	}
}
