package cli

import "testing"

func TestDefaultWindow(t *testing.T) {
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
		if got := DefaultWindow(model); got != want {
			t.Errorf("DefaultWindow(%q) = %d, want %d", model, got, want)
		}
	}
}
