package perf

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// BenchmarkHugeRecordSearch is what one 100 MB record (a tool result, in
// a session's history) costs `clawdcode search` and the Recall tool,
// through the binary, with peak RSS. Target ≤ 256 MB each: the first
// search, which indexes the record; a later search that hits it (its
// snippet cut from it); Recall over the session (a scan of the file) and
// over the project (the index), both hitting it; Recall by the record's
// ref (its first page and neighbours) and a page from its middle by
// offset, both read from the line without decoding the record. The
// record's text is "0123456789abcdef" lines; the query is its one term.
func BenchmarkHugeRecordSearch(b *testing.B) {
	w := newWorld(b)
	hugeRecordSession(b, w, 100<<20)
	index := filepath.Join(w.home, "search")
	recall := []string{"-c", "-p", "recall the digits"}
	cases := []struct {
		name  string
		args  []string
		scope string // a Recall of this scope, asked by the model
		cold  bool   // the index deleted first
		ref   string // Recall's arguments by ref instead of by query
	}{
		{"SearchFirst", []string{"search", "0123456789abcdef"}, "", true, ""},
		{"SearchWarm", []string{"search", "0123456789abcdef"}, "", false, ""},
		{"RecallSession", recall, "session", false, ""},
		{"RecallProject", recall, "project", false, ""},
		{"RecallRef", recall, "session", false, fmt.Sprintf(`{"ref":%q}`, hugeResultUUID)},
		{"RecallPage", recall, "session", false, fmt.Sprintf(`{"ref":%q,"offset":%d}`, hugeResultUUID, 50<<20)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var s sample
			for b.Loop() {
				if c.cold {
					if err := os.RemoveAll(index); err != nil {
						b.Fatal(err)
					}
				}
				if c.scope != "" {
					args := fmt.Sprintf(`{"query":"0123456789abcdef","scope":%q}`, c.scope)
					if c.ref != "" {
						args = c.ref
					}
					w.srv.Enqueue(llmtest.ToolCalls(llmtest.Call("Recall", args)), llmtest.Text("They are digits."))
				}
				r := w.run(b, c.args...)
				if c.scope == "" && !strings.Contains(r.stdout, "0123456789abcdef") {
					b.Fatalf("no hit in the huge record:\n%s", clip(r.stdout, 2000))
				}
				s.add(r)
			}
			if c.ref != "" && !strings.Contains(fmt.Sprint(w.srv.LastRequest()), "shows the next part]") {
				b.Fatalf("Recall showed no page: %s", clip(fmt.Sprint(w.srv.LastRequest()), 2000))
			}
			if c.scope != "" && !strings.Contains(fmt.Sprint(w.srv.LastRequest()), "0123456789abcdef") {
				b.Fatalf("Recall found nothing: %s", clip(fmt.Sprint(w.srv.LastRequest()), 2000))
			}
			s.report(b, "")
		})
	}
}
