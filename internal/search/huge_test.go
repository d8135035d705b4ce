package search

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// Records past bigLine are read into one buffer and decoded over
// themselves: they are found like small ones, escapes and all, with the
// snippet cut around the match, whether the scanner reads them (a tool
// result, a tool call with a huge input) or hands them to encoding/json
// (a key spelt in another case).
func TestHugeRecordsAreFoundWithTheirSnippets(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.project()
	filler := strings.Repeat("lorem ipsum \"dolor\"\tsit amet café\n", bigLine/30+1000)
	in, _ := json.Marshal(map[string]string{"content": filler + "the wallaby input"})
	s := f.session(p,
		user("small one"),
		&storage.Record{Type: storage.TypeToolResult, ToolResult: &storage.ToolResult{ID: "r", Output: filler + "the Quokka hops at dusk\n" + filler}},
		&storage.Record{Type: storage.TypeToolUse, Tool: &storage.ToolUse{ID: "w", Name: "Write", Input: in}},
	)
	// A line the scanner gives up on (a key encoding/json folds), huge.
	odd, _ := json.Marshal(map[string]any{"type": "user", "uuid": "odd-1", "MESSAGE": map[string]string{"content": filler + "the numbat digs"}})
	fh, err := os.OpenFile(s.Path(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.Write(append(odd, '\n'))
	fh.Close()
	for _, c := range []struct{ query, typ, snippet string }{
		{"quokka dusk", "tool_result", "café the Quokka hops at dusk lorem ipsum"},
		{`"quokka hops"`, "tool_result", "the Quokka hops"},
		{"wallaby", "tool_use", "the wallaby input"},
		{"numbat", "user", "the numbat digs"},
	} {
		hits := f.search(Query{Text: c.query})
		if len(hits) != 1 || hits[0].Type != c.typ || !strings.Contains(hits[0].Snippet, c.snippet) || !strings.HasPrefix(hits[0].Snippet, "…") {
			t.Errorf("%s: hits %+v, want one %s with %q", c.query, hits, c.typ, c.snippet)
		}
	}
	if hits := f.search(Query{Text: "dolor"}); len(hits) != 3 {
		t.Errorf("dolor: %d hits, want the 3 huge records", len(hits))
	}
	if hits := f.search(Query{Text: `"hops dusk"`}); len(hits) != 0 {
		t.Errorf("a phrase the record does not hold matched: %+v", hits)
	}
	if len(f.warns) != 0 {
		t.Errorf("warnings: %q", f.warns)
	}
}
