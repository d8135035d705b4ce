//go:build unix

package repl

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/llmtest"
)

// TestScreenCapturesSearchPicker writes what the screen shows of /search's
// picker at 120 and 40 columns, and of the hit it opens, to the file
// CLAWDCODE_SCREEN_CAPTURES names, for issue 25's closing note; without
// it the test is skipped. The TestScreenSearchPicker tests assert the
// behaviour; this one only shows it.
func TestScreenCapturesSearchPicker(t *testing.T) {
	file := os.Getenv("CLAWDCODE_SCREEN_CAPTURES")
	if file == "" {
		t.Skip("set CLAWDCODE_SCREEN_CAPTURES=<file> to write the screen captures")
	}
	var out strings.Builder
	capture := func(title string, s *tmuxScreen) {
		fmt.Fprintf(&out, "==== %s (tmux capture-pane of the real binary against llmtest) ====\n%s\n\n", title, s.visible())
	}
	for _, width := range []int{120, 40} {
		srv := llmtest.NewServer(t, llmtest.Options{})
		s := twoSessionsAboutKumquats(t, srv, width, 30)
		scr := s.searchFor("kumquat")
		capture(fmt.Sprintf("/search kumquat at %d columns: the picker", width), s)
		for range pickerLine(scr, "planting") {
			s.sendKeys("Down")
		}
		s.sendKeys("Enter")
		s.waitFor("▶ search hit")
		s.waitPrompt()
		capture(fmt.Sprintf("Enter on the other session's hit at %d columns: switched, shown at the hit", width), s)
		s.kill()
	}
	if err := os.WriteFile(file, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
