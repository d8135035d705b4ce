package memory

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// detail is printed by a command whose text does not hold it (the user's
// own words are kept word for word by every summary).
const detail = "DETAIL-7003"

// compactedAway runs a session whose first turn printed the detail, fills
// it with more turns, and compacts it against the forgetful summariser, so
// the detail is in the file but not in the context. It returns the
// session's id.
func compactedAway(t *testing.T, w *world) string {
	t.Helper()
	obj := w.runJSON("-p", "bash echo build id DETAIL-$((7000+3))", "--dangerously-skip-permissions")
	for i := range 6 {
		w.runJSON("-c", "-p", fmt.Sprintf("filler turn %d about nothing in particular", i))
	}
	if r := w.MustRun("-c", "-p", "/compact"); !strings.Contains(r.Stdout, "→") {
		t.Fatalf("/compact printed no token change:\n%s", r)
	}
	for _, r := range records(t, w.sessionPath(obj.SessionID)) {
		if r.IsSummary() && strings.Contains(r.Message.Content, detail) {
			t.Fatal("the summary kept the detail; the test needs it forgotten")
		}
	}
	return obj.SessionID
}

var refPattern = regexp.MustCompile(`ref ([0-9a-f-]{36})`)

// TestRecallBringsBackWhatCompactionRemoved: against a summariser that
// forgets every detail, the model's Recall finds the detail in this
// session's stored history, and a ref reads the record whole.
func TestRecallBringsBackWhatCompactionRemoved(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	id := compactedAway(t, w)

	from := len(w.Server.Requests())
	w.runJSON("-c", "-p", "recall "+detail)
	reqs := w.Server.Requests()[from:]
	// The context sent with the question does not hold the detail: only the
	// question itself names it.
	first := reqs[0].Messages
	if containsAny(first[:len(first)-1], detail) {
		t.Fatal("the detail is still in the context after the compaction; nothing to recall")
	}
	got := toolResultAfter(t, w.Server, from)
	if !strings.Contains(got, "build id "+detail) || !strings.Contains(got, "tool_result") {
		t.Fatalf("Recall did not find the command's output:\n%s", got)
	}
	m := refPattern.FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("Recall gave no ref:\n%s", got)
	}

	from = len(w.Server.Requests())
	w.runJSON("-c", "-p", "recall-ref "+m[1])
	got = toolResultAfter(t, w.Server, from)
	if !strings.Contains(got, m[1]) || !strings.Contains(got, "build id "+detail) || !strings.Contains(got, "echo build id DETAIL-$((7000+3))") {
		t.Fatalf("Recall by ref did not show the record and its neighbours:\n%s", got)
	}
	if !strings.Contains(got, "session "+id) {
		t.Fatalf("Recall by ref does not name the session %s:\n%s", id, got)
	}
}

// TestRecallFindsAnotherSessionOfTheProject: a new session finds the
// detail with scope project, and not with the default scope.
func TestRecallFindsAnotherSessionOfTheProject(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	old := compactedAway(t, w)

	from := len(w.Server.Requests())
	obj := w.runJSON("-p", "recall "+detail)
	if obj.SessionID == old {
		t.Fatal("a run without -c continued the old session")
	}
	if got := toolResultAfter(t, w.Server, from); strings.Contains(got, "build id") {
		t.Fatalf("scope session found another session's record:\n%s", got)
	}
	from = len(w.Server.Requests())
	w.runJSON("-r", obj.SessionID, "-p", "recall-project "+detail)
	got := toolResultAfter(t, w.Server, from)
	if !strings.Contains(got, "build id "+detail) || !strings.Contains(got, "session "+old) {
		t.Fatalf("scope project did not find the old session's record:\n%s", got)
	}
}
