package syncs3

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestATeammatesSessions: Bob pulls Alice's prefix read-only (sync --pull
// --from) and continues her session with --fork-session; his own sync
// pushes his fork to his prefix and never Alice's session, to his prefix
// or hers; --from with --push is a usage error. sessions list --remote
// lists a store's sessions with whether this machine has them.
func TestATeammatesSessions(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	alice := newMachine(t, st, "alice", false)
	bob := newMachine(t, st, "bob", false)
	dir := alice.Project
	hers := alice.turn(dir, "", "ALICE-WORK on the importer")
	alice.mustSync()
	aliceObjects := len(st.objects(t))

	if r := bob.Run("sync", "--push", "--from", st.url("alice")); r.Code != 2 {
		t.Fatalf("--from with --push:\n%s", r)
	}
	bob.mustSync("--pull", "--from", st.url("alice"))
	if !bytes.Equal(bob.sessionBytes(hers), alice.sessionBytes(hers)) {
		t.Fatal("Bob's copy is not Alice's session")
	}
	var obj struct {
		SessionID string `json:"session_id"`
	}
	if r := bob.runJSONIn(dir, &obj, "-r", hers, "--fork-session", "-p", "BOB-CONTINUES", "--output-format", "json"); r.Code != 0 || obj.SessionID == hers {
		t.Fatalf("--fork-session of Alice's session:\n%s", r)
	}
	req := requestText(bob.Server.Requests()[0].Messages)
	if !strings.Contains(req, "ALICE-WORK") || !strings.Contains(req, "BOB-CONTINUES") {
		t.Fatalf("Bob's fork does not continue Alice's context:\n%s", req)
	}
	bob.mustSync()

	objs := st.objects(t)
	var bobs, alices int
	for key := range objs {
		switch {
		case strings.HasPrefix(key, "bob/heads/"):
			bobs++
			if strings.HasSuffix(key, "/"+hers) {
				t.Error("Alice's session was pushed to Bob's prefix")
			}
		case strings.HasPrefix(key, "alice/"):
			alices++
		}
	}
	if bobs != 1 || alices != aliceObjects {
		t.Fatalf("Bob's prefix holds %d sessions (want his fork), Alice's %d objects (want %d, untouched)", bobs, alices, aliceObjects)
	}

	// sessions list --remote: Bob's store holds his fork, which is here.
	var rows []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
		Size  int64  `json:"size"`
		Local int64  `json:"local"`
	}
	r := bob.RunIn(dir, "sessions", "list", "--remote", "--json")
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &rows) != nil || len(rows) != 1 || rows[0].ID != obj.SessionID || rows[0].Local != rows[0].Size {
		t.Fatalf("sessions list --remote --json:\n%s", r)
	}
	if r := alice.RunIn(dir, "sessions", "list", "--remote"); r.Code != 0 || !strings.Contains(r.Stdout, hers[:8]) || !strings.Contains(r.Stdout, "yes") || !strings.Contains(r.Stdout, "ALICE-WORK") {
		t.Fatalf("sessions list --remote:\n%s", r)
	}
}
