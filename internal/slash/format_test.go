package slash

import (
	"strings"
	"testing"

	contextmgr "github.com/clawdcode/clawdcode/internal/context"
)

func TestFormatContext(t *testing.T) {
	t.Parallel()
	out := formatContext(contextmgr.Usage{Tokens: 30000, Window: 128000, Configured: 128000, Source: "the models table", Threshold: 0.8, Trigger: 102400, System: 2000, Tools: 3000, Summary: 5000, Messages: 20000, Model: "gpt-4o", Encoding: "o200k_base"})
	for _, want := range []string{
		"Context usage: ~30000 / 128000 tokens (23%)\n",
		"[███████░",
		"system prompt",
		"summary",
		"estimated by clawdcode",
		"model gpt-4o (tokenizer o200k_base); window 128000 tokens from the models table",
		"auto-compaction at 102400 tokens (80% / 72400 tokens away)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("formatContext lacks %q:\n%s", want, out)
		}
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 9 {
		t.Errorf("%d lines:\n%s", len(lines), out)
	}
	full := formatContext(contextmgr.Usage{Tokens: 130000, Window: 128000, Trigger: 102400, Measured: 120000})
	if !strings.Contains(full, "reached") || strings.Contains(full, "|") || !strings.Contains(full, "measured by the server: 120000 tokens") {
		t.Errorf("over the trigger:\n%s", full)
	}
	fb := formatCompact(&contextmgr.CompactResult{PreTokens: 1000, PostTokens: 250, Fallback: true, Err: "summary call: 500"})
	if !strings.Contains(fb, "1000 → 250 tokens (-75%)") || !strings.Contains(fb, "(fallback: summary failed: summary call: 500)") {
		t.Errorf("formatCompact:\n%s", fb)
	}
}
