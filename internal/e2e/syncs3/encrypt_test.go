package syncs3

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNothingInClearWithAKey: with CLAWDCODE_SYNC_KEY, no object in the
// bucket — its name or its bytes — holds a word of the session: not the
// prompt, the reply, the title, the project's path nor the session id. A
// machine without the key is refused with one line naming the variable,
// one with another key with one line saying so, and neither writes a
// session; with the key the pull is A's file.
func TestNothingInClearWithAKey(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	a := newMachine(t, st, "secret", false)
	b := newMachine(t, st, "secret", false)
	const key = "CLAWDCODE_SYNC_KEY=a long passphrase nobody guesses"
	a.ExtraEnv = append(a.ExtraEnv, key)
	dir := filepath.Join(a.Root, "project-xylophone-quartz")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	id := a.turn(dir, "", "QUIXOTIC-ZEBRA refactors the flux capacitor")
	a.turn(dir, id, "MARMALADE-VORTEX second message")
	a.mustSync("--push")

	words := []string{"QUIXOTIC", "ZEBRA", "MARMALADE", "VORTEX", "capacitor", "xylophone", "quartz", "noted", "gpt-4o", id, id[:8], "assistant", "parentUuid"}
	objs := st.objects(t)
	if len(objs) < 3 {
		t.Fatalf("the bucket holds %d objects", len(objs))
	}
	for name, body := range objs {
		for _, w := range words {
			if strings.Contains(name, w) || bytes.Contains(body, []byte(w)) {
				t.Errorf("object %s holds %q in clear", name, w)
			}
		}
	}

	r := b.Run("sync", "--pull")
	if r.Code != 1 || !strings.Contains(oneLine(t, r.Stderr), "CLAWDCODE_SYNC_KEY") {
		t.Fatalf("a pull without the key:\n%s", r)
	}
	b.ExtraEnv = append(b.ExtraEnv, "CLAWDCODE_SYNC_KEY=another passphrase")
	r = b.Run("sync", "--pull")
	if r.Code != 1 || !strings.Contains(oneLine(t, r.Stderr), "not the passphrase") {
		t.Fatalf("a pull with another key:\n%s", r)
	}
	if p := b.sessionPath(id); p != "" {
		t.Fatal("a refused pull wrote the session")
	}
	b.ExtraEnv = append(b.ExtraEnv, key)
	b.mustSync("--pull")
	if !bytes.Equal(a.sessionBytes(id), b.sessionBytes(id)) {
		t.Fatal("the decrypted session is not A's file")
	}
}

// oneLine is the one "clawdcode: " error line of stderr; the test fails
// when there is not exactly one.
func oneLine(t *testing.T, stderr string) string {
	t.Helper()
	var lines []string
	for l := range strings.SplitSeq(strings.TrimSpace(stderr), "\n") {
		if strings.HasPrefix(l, "clawdcode: ") && !strings.HasPrefix(l, "clawdcode: warning:") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 {
		t.Fatalf("want one error line, have %d:\n%s", len(lines), stderr)
	}
	return lines[0]
}
