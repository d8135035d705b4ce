package syncs3

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// requestText is every message of a request, one line each.
func requestText(msgs any) string {
	b, _ := json.Marshal(msgs)
	return string(b)
}

// TestContinueOnAnotherMachine is issue 37's first "done when": machine A
// runs a session with a compaction and pushes; machine B pulls, and -r
// continues it with the summary and the tail in its first request; B's
// new turn, pushed and pulled back on A, continues there. The files are
// byte for byte the same on both machines after each sync.
func TestContinueOnAnotherMachine(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	a := newMachine(t, st, "me", false)
	b := newMachine(t, st, "me", false)
	dir := a.Project // the project, at the same path on both machines

	// Long enough that a summary is smaller than what it replaces.
	detail := strings.Repeat("the parser must reject trailing commas and unknown keys; ", 40)
	id := a.turn(dir, "", "first request: make the parser strict. "+detail)
	a.turn(dir, id, "second request: add the tests. "+detail)
	if r := a.RunIn(dir, "-r", id, "-p", "/compact"); r.Code != 0 {
		t.Fatalf("/compact:\n%s", r)
	}
	a.turn(dir, id, "third request: TAIL-AFTER-THE-COMPACTION")
	if r := a.mustSync("--push"); !strings.Contains(r.Stdout, "pushed: 1 sessions") {
		t.Fatalf("push:\n%s", r)
	}

	if r := b.mustSync("--pull"); !strings.Contains(r.Stdout, "pulled: 1 new sessions") {
		t.Fatalf("pull:\n%s", r)
	}
	if !bytes.Equal(a.sessionBytes(id), b.sessionBytes(id)) {
		t.Fatal("the pulled session is not A's file")
	}
	if r := b.RunIn(dir, "search", "TAIL-AFTER-THE-COMPACTION"); r.Code != 0 || !strings.Contains(r.Stdout, id) {
		t.Fatalf("B's search does not find what the pull brought:\n%s", r)
	}
	if r := b.RunIn(dir, "sessions", "list"); r.Code != 0 || !strings.Contains(r.Stdout, id[:8]) {
		t.Fatalf("B's sessions list does not show the pulled session:\n%s", r)
	}
	b.turn(dir, id, "fourth request: CONTINUED-ON-B")
	first := requestText(b.Server.Requests()[0].Messages)
	for _, want := range []string{"SUMMARY-OF-EARLIER-WORK", "TAIL-AFTER-THE-COMPACTION", "CONTINUED-ON-B"} {
		if !strings.Contains(first, want) {
			t.Errorf("B's first request lacks %q:\n%s", want, first)
		}
	}
	b.mustSync()

	a.mustSync()
	if !bytes.Equal(a.sessionBytes(id), b.sessionBytes(id)) {
		t.Fatal("A's session after the pull is not B's file")
	}
	before := len(a.Server.Requests())
	a.turn(dir, id, "fifth request: BACK-ON-A")
	back := requestText(a.Server.Requests()[before].Messages)
	for _, want := range []string{"SUMMARY-OF-EARLIER-WORK", "CONTINUED-ON-B", "BACK-ON-A"} {
		if !strings.Contains(back, want) {
			t.Errorf("A's request after the pull lacks %q:\n%s", want, back)
		}
	}
}
