package slash

import (
	"strings"
	"testing"
)

func TestInitPrompt(t *testing.T) {
	r := Default()
	got, ok := r.Expand("/init")
	if !ok {
		t.Fatal("/init is not a prompt command")
	}
	for _, want := range []string{"AGENTS.md", "If AGENTS.md already exists, read it first and improve it", "Write tool"} {
		if !strings.Contains(got, want) {
			t.Errorf("/init prompt lacks %q", want)
		}
	}
	got, _ = r.Expand("/init focus on the tests")
	if !strings.HasSuffix(got, "The user adds: focus on the tests") {
		t.Errorf("/init with words: %q", got[len(got)-60:])
	}
}
