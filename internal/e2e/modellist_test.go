package e2e

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestPrintModelListsTheServersModels: `clawdcode -p /model` builds its
// model client lazily (a slash command may make no model call); the lazy
// client must still list the server's models — a wrapper that left the
// method out made /model say the server lists none.
func TestPrintModelListsTheServersModels(t *testing.T) {
	t.Parallel()
	w := harness.NewWorld(t, llmtest.Options{FamilyModel: "served-model-a"})
	r := w.MustRun("-p", "/model")
	if !strings.Contains(r.Stdout, "served-model-a") || strings.Contains(r.Stderr, "does not list its models") {
		t.Fatalf("/model does not list the server's model:\n%s", r)
	}
}
