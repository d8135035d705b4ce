package e2e

import (
	"debug/buildinfo"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// The design card names the libraries the binary uses: tiktoken-go counts
// the tokens the compaction trigger is measured in (its rank files from
// tiktoken-go-loader, embedded), go-openai speaks to the server. They are
// linked into the binary a user runs, not only into the tests.
func TestBinaryLinksTheCardsPackages(t *testing.T) {
	t.Parallel()
	info, err := buildinfo.ReadFile(newWorld(t, llmtest.Options{}).Binary)
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, m := range info.Deps {
		linked[m.Path] = true
	}
	for _, want := range []string{"github.com/pkoukk/tiktoken-go", "github.com/pkoukk/tiktoken-go-loader", "github.com/sashabaranov/go-openai"} {
		if !linked[want] {
			t.Errorf("the binary does not link %s", want)
		}
	}
}
