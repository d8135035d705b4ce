package contextmgr

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// TestSummaryPromptAndItsAnswer: the summary request says "no tool calls"
// at the top and the bottom, gives the /compact instructions the last
// word, and runs in update mode over a previous summary; the stored
// summary keeps the <summary> block without the private analysis, the
// user's messages word for word, and the recall note.
func TestSummaryPromptAndItsAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 32000, nil)
	f.llm.answer = func(n int, req llm.Request) (*llm.Response, error) {
		return &llm.Response{Content: fmt.Sprintf("<analysis>PRIVATE-THOUGHTS %d</analysis>\n<summary>\n## Current work\nSUMMARY-%d\n</summary>", n, n)}, nil
	}
	for i := range 6 {
		f.user(fmt.Sprintf("user message %d: please keep `the exact words`", i))
		f.reply(fmt.Sprintf("reply %d ", i) + strings.Repeat("some words of the reply ", 40))
	}
	if _, err := f.m.Compact(context.Background(), storage.TriggerManual, "focus on the API"); err != nil {
		t.Fatal(err)
	}
	req := f.llm.last()
	system, user := req.Messages[0].Content, req.Messages[1].Content
	if !strings.HasPrefix(system, "Answer with text only. Do not call any tool") || !strings.HasSuffix(system, "No tool calls.") {
		t.Errorf("the summariser is not told at the top and the bottom not to call tools:\n%s", system)
	}
	if !strings.HasSuffix(strings.TrimSpace(user), "focus on the API") {
		t.Errorf("the /compact instructions do not have the last word:\n%s", user[max(0, len(user)-300):])
	}
	if len(req.Tools) != 0 {
		t.Error("the summary request offers tools")
	}
	sum := f.m.live.summary().rec.Message.Content
	if strings.Contains(sum, "PRIVATE-THOUGHTS") || strings.Contains(sum, "<summary>") || !strings.Contains(sum, "SUMMARY-1") {
		t.Errorf("stored summary:\n%s", sum)
	}
	if !strings.Contains(sum, userMessagesHeading) || !strings.Contains(sum, "> user message 0: please keep `the exact words`") {
		t.Errorf("the user's messages are not kept word for word:\n%s", sum)
	}
	if !strings.Contains(sum, recallNoteStart) {
		t.Errorf("no recall note:\n%s", sum)
	}

	// The second compaction merges the first summary in update mode, and
	// keeps the first part's user messages too.
	for i := 6; i < 12; i++ {
		f.user(fmt.Sprintf("user message %d", i))
		f.reply(fmt.Sprintf("reply %d ", i) + strings.Repeat("some words of the reply ", 40))
	}
	if _, err := f.m.Compact(context.Background(), storage.TriggerManual, ""); err != nil {
		t.Fatal(err)
	}
	user = f.llm.last().Messages[1].Content
	if !strings.HasPrefix(user, "UPDATE MODE") || !strings.Contains(user, "SUMMARY-1") || strings.Contains(user, "Recall: the") {
		t.Errorf("the second summary request is not an update of the first:\n%s", user)
	}
	sum = f.m.live.summary().rec.Message.Content
	for _, want := range []string{"> user message 0: please keep", "> user message 8"} {
		if !strings.Contains(sum, want) {
			t.Errorf("the merged summary lost %q:\n%s", want, sum)
		}
	}
	if strings.Count(sum, userMessagesHeading) != 1 {
		t.Errorf("the user's messages section is repeated:\n%s", sum)
	}
}

func TestPrivateAnalysisRemoved(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"<analysis>x</analysis>\n<summary>\nS\n</summary>": "S",
		"<analysis>x</analysis>\nplain summary":            "plain summary",
		"plain":                                            "plain",
		"before <analysis>cut off by the length limit":     "before",
		"<summary>no end":                                  "no end",
	} {
		if got := privateAnalysisRemoved(in); got != want {
			t.Errorf("privateAnalysisRemoved(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPinsRideInTheSystemPromptAndSurviveResume: a pin is in every request
// after compactions, counted, carried by the boundary, restored on resume,
// and gone after unpin.
func TestPinsRideInTheSystemPromptAndSurviveResume(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 32000, nil)
	f.user("first")
	f.reply("ok")
	if _, err := f.m.Pin("PINNED-TEXT stays"); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		f.user(fmt.Sprintf("more %d", i))
		f.reply("ok")
		if _, err := f.m.Compact(context.Background(), storage.TriggerManual, ""); err != nil {
			t.Fatal(err)
		}
	}
	if sys := f.request().Messages[0].Content; !strings.Contains(sys, "PINNED-TEXT stays") {
		t.Fatalf("system prompt after compactions:\n%s", sys)
	}
	if u := f.m.Usage(); u.Pins <= 0 {
		t.Fatalf("the pins are not counted: %+v", u)
	}
	m := f.resume(false)
	if pins := m.Pins(); len(pins) != 1 || pins[0].Text != "PINNED-TEXT stays" {
		t.Fatalf("pins after resume: %+v", pins)
	}
	f.m = m
	if _, err := f.m.Unpin(1); err != nil {
		t.Fatal(err)
	}
	if sys := f.request().Messages[0].Content; strings.Contains(sys, "PINNED") {
		t.Fatalf("the pin is still sent after unpin:\n%s", sys)
	}
	if m := f.resume(false); len(m.Pins()) != 0 {
		t.Fatalf("pins after unpin and resume: %+v", m.Pins())
	}
}
