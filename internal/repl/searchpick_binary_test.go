//go:build unix

package repl

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// twoSessionsAboutKumquats starts the REPL at width×height with two
// sessions that mention kumquats: an older one ("planting"), with an
// exchange after its hit, and the current one ("jam").
func twoSessionsAboutKumquats(t *testing.T, srv *llmtest.Server, width, height int) *tmuxScreen {
	t.Helper()
	srv.SetResponder(llmtest.Agent())
	s := startScreen(t, srv, width, height)
	say := func(text, answer string) {
		s.waitPrompt()
		s.enterAndWait(text, answer)
	}
	say("/rename planting", "planting")
	say("hello there", "You said: hello there")
	say("plant a kumquat tree by the old railway station", "You said: plant a kumquat tree")
	say("and water it on thursdays", "You said: and water it")
	say("/new jam", "jam")
	say("kumquat jam ideas", "You said: kumquat jam ideas")
	s.waitPrompt()
	return s
}

// enterAndWait types text, Enter, and waits for want.
func (s *tmuxScreen) enterAndWait(text, want string) {
	s.t.Helper()
	s.keys(text)
	s.sendKeys("Enter")
	s.waitFor(want)
}

// searchFor runs /search query and waits for its picker.
func (s *tmuxScreen) searchFor(query string) string {
	s.t.Helper()
	s.enterAndWait("/search "+query, "esc cancel")
	return s.waitFor("Search: " + query)
}

// pickerLine is the row of the listed hit whose title is title, counted
// from the first listed (0), or -1.
func pickerLine(scr, title string) int {
	n := -1
	for _, l := range strings.Split(scr[strings.LastIndex(scr, "Search: "):], "\n") {
		t := strings.TrimLeft(strings.TrimSpace(l), "❯ ")
		if len(t) > 2 && t[0] >= '1' && t[0] <= '9' && t[1] == '.' {
			n++
			if strings.HasPrefix(t[3:], title) {
				return n
			}
		}
	}
	return -1
}

// lastRequestText is what the last request to srv sent, its messages one
// after the other.
func lastRequestText(srv *llmtest.Server) string {
	var sent strings.Builder
	for _, m := range srv.LastRequest().Messages {
		sent.WriteString(m.Content + "\n")
	}
	return sent.String()
}

// TestScreenSearchPickerOpensTheHit (issue 25 item 10): /search lists the
// hits in a picker with their sessions' titles and the words in bold;
// moving to the other session's hit and Enter switches the REPL to that
// session and shows the conversation up to the hit, marked.
func TestScreenSearchPickerOpensTheHit(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	s := twoSessionsAboutKumquats(t, srv, 100, 30)
	scr := s.searchFor("kumquat")
	for _, want := range []string{"1. ", "2. ", "planting", "jam", "this session", "plant a kumquat tree by the old railway station"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("the picker does not show %q:\n%s", want, scr)
		}
	}
	styled := s.tmux("capture-pane", "-p", "-e", "-t", s.target)
	if !strings.Contains(styled, "\x1b[1mkumquat") {
		t.Fatalf("the query's word is not in bold:\n%q", styled)
	}
	row := pickerLine(scr, "planting")
	if row < 0 {
		t.Fatalf("no hit of the planting session:\n%s", scr)
	}
	for range row {
		s.sendKeys("C-n")
	}
	s.sendKeys("Down", "Up") // and back: the first of the two planting hits is never the last of four
	s.sendKeys("Enter")
	s.waitFor("▶ search hit")
	s.waitPrompt()
	scr = s.visible()
	marker := strings.Index(scr, "▶ search hit")
	before := strings.Index(scr, "the conversation up to the search hit")
	if !strings.Contains(scr, "Switched to session") || marker < 0 || before < 0 ||
		!strings.Contains(scr[before:marker], "> hello there") ||
		!strings.Contains(scr[marker:], "┃ plant a kumquat tree by the old railway station") ||
		!strings.Contains(scr[marker:], "3 messages after it") || strings.Contains(scr[marker:], "> and water it") {
		t.Fatalf("the hit's session is not shown at the hit:\n%s", scr)
	}
	if strings.Contains(scr, "Search: kumquat") {
		t.Fatalf("the picker is still on the screen:\n%s", scr)
	}
	s.enterAndWait("what next", "You said: what next")
	if sent := lastRequestText(srv); !strings.Contains(sent, "water it on thursdays") || strings.Contains(sent, "jam ideas") {
		t.Fatalf("the next request is not in the planting session:\n%s", sent)
	}
}

// TestScreenSearchPickerEscapeChangesNothing: typing filters the hits;
// Esc closes the picker and the session goes on as it was; a hit in the current session is shown
// without a switch; a search without a hit is one line.
func TestScreenSearchPickerEscapeChangesNothing(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	s := twoSessionsAboutKumquats(t, srv, 100, 30)
	s.searchFor("kumquat")
	s.keys("railway")
	scr := s.waitFor("filter: railway")
	if listed := scr[strings.LastIndex(scr, "Search: kumquat"):]; strings.Contains(listed, "jam ideas") || !strings.Contains(listed, "railway station") {
		t.Fatalf("typing did not filter the hits:\n%s", listed)
	}
	s.sendKeys("Escape")
	s.waitPrompt()
	if scr := s.visible(); strings.Contains(scr, "Search: kumquat") || strings.Contains(scr, "Switched") || strings.Contains(scr, "search hit") {
		t.Fatalf("Esc left something behind:\n%s", scr)
	}

	scr = s.searchFor("kumquat")
	row := pickerLine(scr, "jam")
	if row < 0 {
		t.Fatalf("no hit of the current session:\n%s", scr)
	}
	s.keys(string(rune('1' + row)))
	s.waitFor("┃ kumquat jam ideas")
	s.waitPrompt()
	if strings.Contains(s.visible(), "Switched") {
		t.Fatalf("a hit in the current session switched:\n%s", s.visible())
	}

	s.enterAndWait("/search zeppelin", "No match for zeppelin in this project's sessions.")
	s.waitPrompt()
	s.enterAndWait("and so", "You said: and so")
	if sent := lastRequestText(srv); !strings.Contains(sent, "kumquat jam ideas") || strings.Contains(sent, "railway") {
		t.Fatalf("the session changed:\n%s", sent)
	}
}

// TestScreenSearchPickerWrapsAtFortyColumns: at 40 columns the titles,
// details and snippets wrap at words; none is cut.
func TestScreenSearchPickerWrapsAtFortyColumns(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Options{})
	s := twoSessionsAboutKumquats(t, srv, 40, 30)
	s.searchFor("kumquat")
	scr := s.visible()
	picker := scr[strings.LastIndex(scr, "Search: kumquat"):]
	if strings.Contains(picker, "…") {
		t.Fatalf("the picker cut something at 40 columns:\n%s", picker)
	}
	words := map[string]bool{}
	for _, l := range strings.Split(picker, "\n") {
		for _, w := range strings.Fields(l) {
			words[w] = true
		}
	}
	for _, w := range strings.Fields("plant a kumquat tree by the old railway station kumquat jam ideas esc cancel") {
		if !words[w] {
			t.Fatalf("%q is not shown whole at 40 columns:\n%s", w, picker)
		}
	}
}
