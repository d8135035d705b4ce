package contextmgr

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// userMessagesHeading opens the section of the user's own words that
// clawdcode adds to every summary, after the model's part.
const userMessagesHeading = "## The user's messages, word for word"

// userMessageMax bounds one message in that section.
const userMessageMax = 2000

// saidTimes is the line under a message the user sent several times in a
// row ("go on", "next"): the section states it once, and how often.
var saidTimes = regexp.MustCompile(`\n\(the user said this (\d+) times in a row\)$`)

// userMessage is a message of the section and how many times in a row
// the user sent it.
type userMessage struct {
	text  string
	times int
}

// userMessages is the section of the summary that keeps the user's own
// messages word for word — those of the previous summary's section, then
// those of the dropped part — within a budget of about half the summary's
// own (the user's words are the cheapest and most important thing to
// keep). A message sent several times in a row is kept once, with the
// count: a session worked a "go on" at a time would otherwise fill a
// small window's summary with copies. When they do not fit, the oldest
// are left out, and the section says how many (Recall still finds them).
func (s *summarizer) userMessages(prev string, dropped []*entry) string {
	var msgs []userMessage
	add := func(text string, times int) {
		if n := len(msgs); n > 0 && msgs[n-1].text == text {
			msgs[n-1].times += times
			return
		}
		msgs = append(msgs, userMessage{text, times})
	}
	if i := strings.Index(prev, userMessagesHeading); i >= 0 {
		for _, block := range strings.Split(prev[i+len(userMessagesHeading):], "\n\n> ") {
			m := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(block), ">"))
			if m == "" || strings.HasPrefix(m, "(") && strings.Contains(m, "earlier messages left out") {
				continue
			}
			times := 1
			if sm := saidTimes.FindStringSubmatch(m); sm != nil {
				times, _ = strconv.Atoi(sm[1])
				m = m[:len(m)-len(sm[0])]
			}
			add(strings.ReplaceAll(m, "\n> ", "\n"), times)
		}
	}
	for _, e := range dropped {
		if e.rec.Type == storage.TypeUser && !e.rec.IsCompactSummary {
			if m := strings.TrimSpace(messageContent(e.rec)); m != "" {
				add(m, 1)
			}
		}
	}
	if len(msgs) == 0 {
		return ""
	}
	budget := 2 * s.guard.summaryMax() // bytes: about half the summary budget in tokens
	var kept []userMessage
	used, left := 0, 0
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if len(m.text) > userMessageMax {
			m.text = cutUTF8(m.text, userMessageMax) + " […]"
		}
		if used+len(m.text) > budget && len(kept) > 0 {
			for _, x := range msgs[:i+1] {
				left += x.times
			}
			break
		}
		kept = append(kept, m)
		used += len(m.text)
	}
	var b strings.Builder
	b.WriteString("\n\n" + userMessagesHeading + "\n")
	if left > 0 {
		fmt.Fprintf(&b, "\n(%d earlier messages left out for room; Recall finds them)\n", left)
	}
	for i := len(kept) - 1; i >= 0; i-- {
		b.WriteString("\n> ")
		b.WriteString(strings.ReplaceAll(kept[i].text, "\n", "\n> "))
		if kept[i].times > 1 {
			fmt.Fprintf(&b, "\n(the user said this %d times in a row)", kept[i].times)
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
