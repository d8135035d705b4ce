package cli

import (
	"fmt"
	"io"

	"github.com/clawdcode/clawdcode/internal/agent"
	"github.com/clawdcode/clawdcode/internal/memory"
)

// suggestions is what the end of a run reads of the engine's memories.
type suggestions interface {
	Suggested() []memory.Suggestion
	Book() *memory.Book
}

var _ suggestions = (*agent.Memory)(nil)

// noteSuggestions tells the user, once the run is over, about the memory
// suggestions it made that still wait for an answer: suggestions are
// never silent, and never given to the model before they are accepted.
func noteSuggestions(w io.Writer, mem suggestions) {
	made := mem.Suggested()
	if len(made) == 0 {
		return
	}
	v, err := mem.Book().View()
	if err != nil {
		return
	}
	pending := map[string]bool{}
	for _, s := range v.Suggestions {
		pending[s.ID] = true
	}
	n := 0
	for _, s := range made {
		if pending[s.ID] {
			n++
		}
	}
	switch {
	case n == 1:
		fmt.Fprintln(w, "clawdcode: 1 memory suggested from this session (not given to the model until you accept it): see /memory")
	case n > 1:
		fmt.Fprintf(w, "clawdcode: %d memories suggested from this session (not given to the model until you accept them): see /memory\n", n)
	}
}
