package syncs3

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/e2e/harness"
)

// uuids are the uuids of the records of a session file's bytes.
func uuids(t *testing.T, data []byte) []string {
	t.Helper()
	var out []string
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r harness.Record
		if err := decodeLast(string(line), &r); err != nil {
			t.Fatalf("a line that is not a record: %v: %s", err, line)
		}
		out = append(out, r.UUID)
	}
	return out
}

var forkLine = regexp.MustCompile(`continue in ([0-9a-f-]{36})`)

// TestBothMachinesAppendedOffline: after a sync, A and B each run turns
// in the same session while apart, then both sync (A first). Every record
// of both is on both machines, each once: the session holds A's line
// (A synced first), B's own records continue in a fork that B's sync
// names and that `sessions list` shows on both machines, titled as a fork.
func TestBothMachinesAppendedOffline(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	a := newMachine(t, st, "me", false)
	b := newMachine(t, st, "me", false)
	dir := a.Project
	id := a.turn(dir, "", "shared start")
	a.mustSync()
	b.mustSync()

	a.turn(dir, id, "A-OFFLINE-ONE")
	aOwn := uuids(t, a.sessionBytes(id))
	b.turn(dir, id, "B-OFFLINE-ONE")
	b.turn(dir, id, "B-OFFLINE-TWO")
	bOwn := uuids(t, b.sessionBytes(id))
	// B's search index holds B's line in the session before the sync.
	if r := b.RunIn(dir, "search", "B-OFFLINE-TWO"); r.Code != 0 || !strings.Contains(r.Stdout, id) {
		t.Fatalf("B's search before the sync:\n%s", r)
	}

	a.mustSync()
	r := b.mustSync()
	m := forkLine.FindStringSubmatch(r.Stdout)
	if m == nil {
		t.Fatalf("B's sync names no fork:\n%s", r)
	}
	fork := m[1]
	a.mustSync()

	for name, mc := range map[string]*machine{"A": a, "B": b} {
		if !bytes.Equal(mc.sessionBytes(id), a.sessionBytes(id)) || !bytes.Equal(mc.sessionBytes(fork), b.sessionBytes(fork)) {
			t.Fatalf("%s: the session or the fork differs between the machines", name)
		}
		all := map[string]int{}
		for _, u := range append(uuids(t, mc.sessionBytes(id)), uuids(t, mc.sessionBytes(fork))...) {
			all[u]++
		}
		for _, u := range append(aOwn, bOwn...) {
			if all[u] == 0 {
				t.Errorf("%s: record %s is on neither the session nor the fork", name, u)
			}
		}
		for _, f := range []string{id, fork} {
			if u := uuids(t, mc.sessionBytes(f)); len(slices.Compact(slices.Sorted(slices.Values(u)))) != len(u) {
				t.Errorf("%s: a record twice in %s", name, f)
			}
		}
		list := mc.RunIn(dir, "sessions", "list")
		if list.Code != 0 || !strings.Contains(list.Stdout, fork[:8]) || !strings.Contains(list.Stdout, id[:8]) || !strings.Contains(list.Stdout, "fork") {
			t.Errorf("%s: sessions list does not show the session and its fork, named as such:\n%s", name, list)
		}
	}
	// B's search index follows what arrived, the session's file replaced
	// under it included: A's turn is found in the session, B's in the fork.
	for word, want := range map[string]string{"A-OFFLINE-ONE": id, "B-OFFLINE-TWO": fork} {
		r := b.RunIn(dir, "search", "--json", word)
		var hits []struct {
			SessionID string `json:"sessionId"`
		}
		if r.Code != 0 || decodeLast(r.Stdout, &hits) != nil || len(hits) == 0 {
			t.Fatalf("B's search for %s:\n%s", word, r)
		}
		for _, h := range hits {
			if h.SessionID != want {
				t.Errorf("B's search for %s found it in %s, want %s", word, h.SessionID, want)
			}
		}
	}
	if text := string(b.sessionBytes(id)); strings.Contains(text, "B-OFFLINE") {
		t.Error("B's own turns are still in the session: they belong to the fork")
	}
	if text := string(a.sessionBytes(fork)); !strings.Contains(text, "B-OFFLINE-TWO") || strings.Contains(text, "A-OFFLINE") {
		t.Error("the fork does not hold B's line alone")
	}
	// The fork continues B's line.
	before := len(b.Server.Requests())
	b.turn(dir, fork, "ON-THE-FORK")
	req := requestText(b.Server.Requests()[before].Messages)
	if !strings.Contains(req, "B-OFFLINE-TWO") || strings.Contains(req, "A-OFFLINE-ONE") {
		t.Errorf("the fork's next request is not B's line:\n%s", req)
	}
	if _, err := os.Stat(b.sessionPath(id)); err != nil {
		t.Fatal(err)
	}
}
