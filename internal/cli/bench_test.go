package cli

import (
	"context"
	"testing"

	"github.com/clawdcode/clawdcode/internal/iostreams"
)

// BenchmarkVersion is the in-process cost of `clawdcode --version`: the
// command tree is built and nothing else (no store, client or tokenizer).
func BenchmarkVersion(b *testing.B) {
	for b.Loop() {
		ios, _, out, _ := iostreams.Test()
		if code := Run(context.Background(), NewFactory(ios), []string{"--version"}); code != 0 || out.Len() == 0 {
			b.Fatalf("exit %d, output %q", code, out)
		}
	}
}
