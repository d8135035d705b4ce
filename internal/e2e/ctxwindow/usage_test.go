package ctxwindow

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

var contextPart = regexp.MustCompile(`^  (system prompt|pins|tools|MCP tools|summary|messages)\s+(\d+) tokens`)

// contextFigures reads /context's total and its parts.
func contextFigures(t *testing.T, out string) (total int, parts map[string]int) {
	t.Helper()
	parts = map[string]int{}
	for _, l := range strings.Split(out, "\n") {
		if m := contextLine.FindStringSubmatch(l); m != nil {
			total, _ = strconv.Atoi(m[1])
		}
		if m := contextPart.FindStringSubmatch(l); m != nil {
			parts[m[1]], _ = strconv.Atoi(m[2])
		}
	}
	if total == 0 || len(parts) < 4 {
		t.Fatalf("/context printed no total or not its parts:\n%s", out)
	}
	return total, parts
}

// TestContextAddsUp (issue 8, one owner per rule): after an exchange the
// server measured, /context's parts sum to its total, the messages are not
// shown as 0 tokens, what the server measured is labelled, and a further
// exchange makes the total grow. (It used to show "messages 0 tokens"
// with parts exceeding the total.)
func TestContextAddsUp(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{})
	w.Server.SetResponder(agentWithSummaries(fixedSummary))
	w.MustRun("-p", "hello there")
	out := w.MustRun("-c", "-p", "/context").Stdout
	total, parts := contextFigures(t, out)
	sum := 0
	for _, n := range parts {
		sum += n
	}
	if sum != total {
		t.Errorf("parts sum to %d, total %d:\n%s", sum, total, out)
	}
	if parts["messages"] <= 0 {
		t.Errorf("after an exchange the messages weigh %d tokens:\n%s", parts["messages"], out)
	}
	if !strings.Contains(out, "measured by the server") {
		t.Errorf("/context does not say what the server measured:\n%s", out)
	}
	w.MustRun("-c", "-p", "tell me more about "+strings.Repeat("this ", 200))
	later, _ := contextFigures(t, w.MustRun("-c", "-p", "/context").Stdout)
	if later <= total {
		t.Errorf("after another exchange the total went from %d to %d", total, later)
	}
}
