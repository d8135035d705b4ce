package memory

import (
	"fmt"
	"testing"

	"github.com/clawdcode/clawdcode/internal/tokens"
)

// BenchmarkPromptAtSessionStart is what a session's start pays for its
// memories: both logs read and folded, each memory checked against the
// project, and the prompt section built — with 10 short memories (the
// byte bound spares the encoder) and with 40 (counted exactly; the
// encoder is loaded before the timer, once per process).
func BenchmarkPromptAtSessionStart(b *testing.B) {
	for _, c := range []struct{ n, size int }{{10, 40}, {40, 60}, {40, 600}} {
		b.Run(fmt.Sprintf("%dx%dB", c.n, c.size), func(b *testing.B) {
			book := newBook(&testing.T{})
			write(&testing.T{}, book.Root(), "Makefile", "test:\n")
			for i := range c.n {
				text := fmt.Sprintf("Memory %d: run `make test` before committing %s", i, pad(c.size))
				if _, _, err := book.Add(b.Context(), Project, text); err != nil {
					b.Fatal(err)
				}
			}
			counter := tokens.NewCounter("gpt-4o")
			if err := counter.Load(); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := book.Prompt(counter, PromptBudget, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func pad(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = "abcdefgh "[i%9]
	}
	return string(b)
}
