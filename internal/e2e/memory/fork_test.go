package memory

import (
	"bytes"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// TestForkLeavesTheOriginalUntouched: --fork-session with -c, and /fork as
// the -p prompt, start new sessions with the original's context; the
// original's file does not change by a byte, and the fork's turns go to
// the fork.
func TestForkLeavesTheOriginalUntouched(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	orig := w.runJSON("-p", "the first message").SessionID
	w.runJSON("-c", "-p", "the second message")
	path := w.sessionPath(orig)
	before := readBytes(t, path)

	from := len(w.Server.Requests())
	fork := w.runJSON("-c", "--fork-session", "-p", "a message in the fork")
	if fork.SessionID == orig || fork.SessionID == "" {
		t.Fatalf("the fork ran in session %q (original %s)", fork.SessionID, orig)
	}
	if !bytes.Equal(readBytes(t, path), before) {
		t.Fatal("--fork-session changed the original session's file")
	}
	// The fork's request carried the original's context.
	msgs := w.Server.Requests()[from].Messages
	if !containsAny(msgs, "the first message") || !containsAny(msgs, "the second message") {
		t.Fatalf("the fork's request lacks the original's context: %+v", msgs)
	}
	recs := records(t, w.sessionPath(fork.SessionID))
	if r := recs[0]; r.Type != storage.TypeSystem || r.Subtype != storage.SubtypeFork || r.Fork == nil || r.Fork.SessionID != orig {
		t.Fatalf("the fork does not open with a fork record naming %s: %+v", orig, recs[0])
	}
	for i, r := range recs {
		if r.SessionID != fork.SessionID {
			t.Fatalf("record %d of the fork has sessionId %s", i, r.SessionID)
		}
		if i > 0 && (r.ParentUUID == nil || *r.ParentUUID != recs[i-1].UUID) {
			t.Fatalf("record %d of the fork breaks the parentUuid chain", i)
		}
	}

	r := w.MustRun("-r", orig, "-p", "/fork")
	if !strings.Contains(r.Stdout, "Forked session") {
		t.Fatalf("/fork printed:\n%s", r)
	}
	if !bytes.Equal(readBytes(t, path), before) {
		t.Fatal("/fork changed the original session's file")
	}
	if n := len(w.sessions()); n != 3 {
		t.Fatalf("%d session files, want the original and two forks", n)
	}
}
