package ctxwindow

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestWindowFromTheServer: a local model the models table does not know,
// no window set anywhere — against each family of servers clawdcode asks
// (CONTRACT §8), a long session compacts before the server ever rejects a
// request, and /context says where the window came from.
func TestWindowFromTheServer(t *testing.T) {
	t.Parallel()
	const model = "qwen2.5-coder-local"
	for _, c := range []struct{ family, source string }{
		{llmtest.FamilyVLLM, "vLLM /models max_model_len"},
		{llmtest.FamilyLlamaCpp, "llama.cpp /props n_ctx"},
		{llmtest.FamilyLMStudio, "LM Studio /api/v0/models loaded_context_length"},
		{llmtest.FamilyOllama, "Ollama /api/show num_ctx"},
		{llmtest.FamilyOpenRouter, "OpenRouter /models context_length"},
	} {
		t.Run(c.family, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, llmtest.Options{Window: autoWindow, Family: c.family, FamilyModel: model})
			w.Server.SetResponder(agentWithSummaries(fixedSummary))
			files := []string{"alpha.txt", "beta.txt", "gamma.txt", "delta.txt", "epsilon.txt", "zeta.txt"}
			for _, f := range files {
				w.writeFile(f, bigText(strings.TrimSuffix(f, ".txt"), 110))
			}
			compactions := 0
			for i, f := range files {
				args := []string{"-p", "read " + f, "-m", model}
				if i > 0 {
					args = append([]string{"-c"}, args...)
				}
				obj := w.mustJSON(args...)
				if obj.Context.Window != autoWindow {
					t.Fatalf("turn %d: window %d, want the server's %d", i, obj.Context.Window, autoWindow)
				}
				// The context ladder clears old results before it
				// compacts: either shows the server's window in force.
				compactions = *obj.Compactions + len(recordsOfSubtype(readRecords(t, w.onlySession()), "context_clear"))
				if compactions > 0 {
					break
				}
			}
			if compactions == 0 {
				t.Fatalf("no compaction nor clearing in %d turns of large reads against a %d-token server", len(files), autoWindow)
			}
			noRejections(t, w.Server)
			metadata := w.Server.MetadataRequests()
			r := w.MustRun("-c", "-p", "/context", "-m", model)
			if !strings.Contains(r.Stdout, c.source) {
				t.Errorf("/context does not say the window came from %s:\n%s", c.source, r.Stdout)
			}
			if w.Server.MetadataRequests() != metadata {
				t.Errorf("the window was asked again though it is cached")
			}
		})
	}
}
