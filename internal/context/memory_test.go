package contextmgr

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llm"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// TestSummaryPromptAndItsAnswer: the summary is asked at the end of the
// agent's own request — its system prompt, tools and messages as the next
// request would send them, the tools offered with tool_choice "none" — so
// that a prompt cache serves all but the instruction; the instruction
// says "no tool calls", gives the /compact instructions the last word,
// and over a previous summary asks for one merged summary. The stored
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
	agent := f.request()
	if _, err := f.m.Compact(context.Background(), storage.TriggerManual, "focus on the API"); err != nil {
		t.Fatal(err)
	}
	req := f.llm.last()
	if !sharesPrefix(agent, req) || req.ToolChoice != llm.ToolChoiceNone || len(req.Messages) != len(agent.Messages)+1 {
		t.Fatalf("the summary request does not extend the agent's request (tool_choice %q, %d messages after %d)", req.ToolChoice, len(req.Messages), len(agent.Messages))
	}
	ask := req.Messages[len(req.Messages)-1].Content
	if !strings.HasPrefix(ask, "Stop the task for a moment: this conversation is about to be compacted.") || !strings.Contains(ask, "do not call any tool") {
		t.Errorf("the summariser is not told to stop and not to call tools:\n%s", ask)
	}
	if !strings.HasSuffix(strings.TrimSpace(ask), "focus on the API") {
		t.Errorf("the /compact instructions do not have the last word:\n%s", ask[max(0, len(ask)-300):])
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

	// The second compaction merges the first summary, and keeps the first
	// part's user messages too.
	for i := 6; i < 12; i++ {
		f.user(fmt.Sprintf("user message %d", i))
		f.reply(fmt.Sprintf("reply %d ", i) + strings.Repeat("some words of the reply ", 40))
	}
	if _, err := f.m.Compact(context.Background(), storage.TriggerManual, ""); err != nil {
		t.Fatal(err)
	}
	req = f.llm.last()
	if first := req.Messages[1].Content; !strings.Contains(first, "SUMMARY-1") || !strings.Contains(req.Messages[len(req.Messages)-1].Content, "write ONE summary that merges it") {
		t.Errorf("the second summary request is not an update of the first:\n%.300s", first)
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

// TestSummaryAskedApartWhenThePrefixDoesNotFit: when the request in
// force, the instruction and the summary's reply budget do not fit the
// window, the summary is asked apart, as before: its own system prompt,
// the conversation as one message, no tools, and in update mode over a
// previous summary.
func TestSummaryAskedApartWhenThePrefixDoesNotFit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 4000, nil)
	for i := range 4 {
		f.user(fmt.Sprintf("user message %d", i))
		f.reply(strings.Repeat("some words of the reply ", 150))
	}
	for range 2 {
		if _, err := f.m.Compact(context.Background(), storage.TriggerManual, "focus on the API"); err != nil {
			t.Fatal(err)
		}
		f.user("more")
		f.reply(strings.Repeat("some words of the reply ", 500))
	}
	req := f.llm.last()
	system, user := req.Messages[0].Content, req.Messages[1].Content
	if len(req.Tools) != 0 || !strings.HasPrefix(system, "Answer with text only. Do not call any tool") || !strings.HasSuffix(system, "No tool calls.") {
		t.Errorf("the summary asked apart is not told at the top and the bottom not to call tools, or offers tools:\n%s", system)
	}
	if !strings.HasPrefix(user, "UPDATE MODE") || !strings.HasSuffix(strings.TrimSpace(user), "focus on the API") {
		t.Errorf("the second summary asked apart is not an update with the instructions last:\n%s", user)
	}
}

// sharesPrefix reports whether req begins with the whole of agent: the
// same model, tools and messages, byte for byte.
func sharesPrefix(agent, req llm.Request) bool {
	a, _ := json.Marshal(agent.Tools)
	b, _ := json.Marshal(req.Tools)
	if agent.Model != req.Model || string(a) != string(b) || len(req.Messages) < len(agent.Messages) {
		return false
	}
	for i, m := range agent.Messages {
		x, _ := json.Marshal(m)
		y, _ := json.Marshal(req.Messages[i])
		if string(x) != string(y) {
			return false
		}
	}
	return true
}

// requestText is every message's content of req, one after the other.
func requestText(req llm.Request) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return b.String()
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
