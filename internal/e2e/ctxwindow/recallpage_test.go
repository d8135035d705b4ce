package ctxwindow

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/llmtest"
)

var (
	// wholeByRecall is what a text cut to fit the window says of its whole.
	wholeByRecall = regexp.MustCompile(`omitted \.\.\.\] \[cut: Recall ref=(\S+) reads the whole text`)
	// nextPart is the line after a page of a record that is not its last.
	nextPart = regexp.MustCompile(`\n\[bytes \d+–\d+ of \d+; Recall ref=(\S+) offset=(\d+) shows the next part\]`)
	// lastPart is the line after a record's last page.
	lastPart = regexp.MustCompile(`\n\[bytes \d+–\d+ of \d+: the end of record \S+\]`)
)

// recallPager plays a model that reads a record whole through Recall: it
// opens ref, then follows each answer's next call until the last part.
func recallPager(ref string) func(llmtest.Request) llmtest.Reply {
	return func(r llmtest.Request) llmtest.Reply {
		last := r.Messages[len(r.Messages)-1]
		if last.Role == chat.RoleUser {
			return llmtest.ToolCalls(llmtest.Call("Recall", fmt.Sprintf(`{"ref":%q}`, ref)))
		}
		if m := nextPart.FindStringSubmatch(last.Content); m != nil && last.Role == chat.RoleTool {
			return llmtest.ToolCalls(llmtest.Call("Recall", fmt.Sprintf(`{"ref":%q,"offset":%s}`, m[1], m[2])))
		}
		return llmtest.Text("read it all")
	}
}

// pageOf is the part of the record a Recall answer shows: the text after
// the record's header line (">>" marks it among neighbours) up to the
// line that says which bytes it was.
func pageOf(t *testing.T, answer string) string {
	t.Helper()
	start := strings.Index(answer, ">>- ref ")
	if start < 0 {
		start = strings.Index(answer, "\n- ref ")
	}
	if start < 0 {
		t.Fatalf("no record in the answer %.300q", answer)
	}
	body := answer[start:]
	body = body[strings.Index(body, ":\n")+2:]
	loc := nextPart.FindStringIndex(body)
	if loc == nil {
		loc = lastPart.FindStringIndex(body)
	}
	if loc == nil {
		t.Fatalf("no line saying which bytes were shown in %.300q", body[max(0, len(body)-300):])
	}
	return body[:loc[0]]
}

// TestRecallReadsACutToolResultWhole: a tool result cut to fit the
// server's window names the Recall call that reads it whole; a later run
// whose model makes that call and follows each answer's next call reads
// the result back byte for byte, several pages, each answer bounded.
func TestRecallReadsACutToolResultWhole(t *testing.T) {
	t.Parallel()
	w := newWorld(t, llmtest.Options{Window: 6000})
	w.Server.SetResponder(agentWithSummaries(fixedSummary))
	w.writeFile("huge.txt", strings.ReplaceAll(bigText("huge", 420), "parser", "pärser ✓"))
	w.mustJSON("-p", "read huge.txt", "--context-window", itoa(believedWindow))

	reqs := w.Server.Requests()
	cut := reqs[len(reqs)-1].Messages
	m := wholeByRecall.FindStringSubmatch(cut[len(cut)-1].Content)
	if m == nil {
		t.Fatalf("the cut result does not say how to read it whole: %.400q", cut[len(cut)-1].Content)
	}
	var whole string
	for _, r := range readRecords(t, w.onlySession()) {
		if r.Type == "tool_result" {
			whole = r.ToolResult.Output
		}
	}
	if len(whole) < 24000 {
		t.Fatalf("the stored result has %d bytes; the test needs one longer than a page", len(whole))
	}

	w.Server.SetWindow(1 << 20)
	w.Server.SetResponder(recallPager(m[1]))
	before := len(w.Server.Requests())
	w.mustJSON("-c", "-p", "read the whole result back", "--context-window", "200000")
	var got strings.Builder
	calls := 0
	for _, r := range w.Server.Requests()[before+1:] {
		answer := r.Messages[len(r.Messages)-1]
		if answer.Role != chat.RoleTool {
			t.Fatalf("want Recall's answer last, have %s %.200q", answer.Role, answer.Content)
		}
		if len(answer.Content) > 30000 {
			t.Errorf("a Recall answer of %d bytes", len(answer.Content))
		}
		got.WriteString(pageOf(t, answer.Content))
		calls++
	}
	if got.String() != whole || calls < 2 {
		t.Fatalf("%d Recall calls read back %d bytes of %d (equal: %v)", calls, got.Len(), len(whole), got.String() == whole)
	}
}
