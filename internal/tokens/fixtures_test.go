package tokens

import (
	"encoding/json"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
)

func readFixture(t testing.TB, name string, v any) {
	t.Helper()
	data := fixtures.Read(t, "tiktoken", name)
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
}

type tokenVector struct {
	Source       string `json:"source"`
	Encoding     string `json:"encoding"`
	Text         string `json:"text"`
	AllowSpecial bool   `json:"allow_special"`
	ExpectedIDs  []int  `json:"expected_ids"`
	Count        int    `json:"expected_count"`
}

func tokenVectors(t testing.TB) []tokenVector {
	var f struct {
		Vectors []tokenVector `json:"vectors"`
	}
	readFixture(t, "token_vectors_cl100k_o200k.json", &f)
	if len(f.Vectors) == 0 {
		t.Fatal("no token vectors in fixture")
	}
	return f.Vectors
}

type corpusSample struct {
	Name     string `json:"name"`
	Encoding string `json:"encoding"`
	Text     string `json:"text"`
	Count    int    `json:"count_tiktoken_go"`
}

func corpusSamples(t testing.TB) []corpusSample {
	var f struct {
		Samples []corpusSample `json:"samples"`
	}
	readFixture(t, "realistic_corpus_computed_counts.json", &f)
	if len(f.Samples) == 0 {
		t.Fatal("no samples in fixture")
	}
	return f.Samples
}

// modelFor returns a model name whose encoding is enc.
func modelFor(t testing.TB, enc string) string {
	t.Helper()
	switch enc {
	case O200kBase:
		return "gpt-4o"
	case Cl100kBase:
		return "gpt-4"
	}
	t.Fatalf("fixture uses encoding %q clawdcode does not ship", enc)
	return ""
}
