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

// TestEarlierResumesPacketsLeaveWithAClearing: a session resumed every
// turn gets a re-orientation packet each time; when the ladder clears old
// results, the packets of earlier resumes go with them — only the latest
// stays — and a resume after that sends the very same bytes.
func TestEarlierResumesPacketsLeaveWithAClearing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 8000, nil)
	big := strings.Repeat("a line of output that fills the window\n", 160)
	clears := func() int {
		n := 0
		for _, r := range f.log.records(t) {
			if r.Subtype == storage.SubtypeContextClear && r.CompactMetadata != nil && len(r.CompactMetadata.Cleared) > 0 {
				n++
			}
		}
		return n
	}
	checked := 0
	var req llm.Request
	for i := range 8 {
		if i > 0 {
			f.m = f.resume(false)
		}
		f.user(fmt.Sprintf("go on with part %d", i))
		f.toolTurn(fmt.Sprintf("c%d", i), "Read", `{"file_path":"p.txt"}`, big)
		before := clears()
		req = f.request()
		f.reply("done")
		if clears() == before || i < 2 {
			continue
		}
		checked++
		packets := 0
		for _, m := range req.Messages {
			packets += strings.Count(m.Content, packetHeading)
		}
		if packets != 1 {
			t.Errorf("turn %d: the request after a clearing carries %d re-orientation packets, want the latest only", i, packets)
		}
	}
	if checked == 0 {
		t.Fatal("the ladder never cleared after a resume: the test needs a clearing")
	}
	req = f.request()
	f.m = f.resume(false)
	again := f.request()
	a, _ := json.Marshal(req.Messages)
	b, _ := json.Marshal(again.Messages)
	if string(a) != string(b) {
		t.Errorf("a resume sends other bytes:\nbefore %.600s\nafter  %.600s", a, b)
	}
}

// TestRepeatedUserMessageKeptOnce: a message the user sent several times
// in a row is kept once in the summary's section of the user's words,
// with the count, which the next summary adds to.
func TestRepeatedUserMessageKeptOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 32000, nil)
	compact := func() string {
		if _, err := f.m.Compact(context.Background(), storage.TriggerManual, ""); err != nil {
			t.Fatal(err)
		}
		sum := f.m.live.summary().rec.Message.Content
		// The section of the user's words: the packet after it quotes too.
		i, j := strings.Index(sum, userMessagesHeading), strings.Index(sum, recallNoteStart)
		if i < 0 || j < i {
			t.Fatalf("no section of the user's words:\n%s", sum)
		}
		return sum[i:j]
	}
	f.user("start with the parser")
	f.reply("ok")
	for range 5 {
		f.user("go on")
		f.reply(strings.Repeat("working ", 30))
	}
	f.user("last")
	f.reply("ok")
	sum := compact()
	if strings.Count(sum, "> go on") != 1 || !strings.Contains(sum, "> go on\n(the user said this 5 times in a row)") {
		t.Errorf("the repeated message is not kept once with its count:\n%s", sum)
	}
	f.user("go on")
	f.reply("ok")
	f.user("go on")
	f.reply("ok")
	f.user("end")
	f.reply("ok")
	sum = compact()
	for _, want := range []string{"> start with the parser", "(the user said this 5 times in a row)", "> last\n\n> go on\n(the user said this 2 times in a row)"} {
		if !strings.Contains(sum, want) {
			t.Errorf("the second summary lacks %q:\n%s", want, sum)
		}
	}
}
