package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSeatbeltProfile: the macOS profile (which CI, on Linux, cannot run)
// allows writing only the writable roots, denies the protected and the
// denied paths, and the network but the proxy.
func TestSeatbeltProfile(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	pol := Policy{Mode: WorkspaceWrite, Root: root, TempDirs: []string{"/private/tmp"}, DenyRead: []string{`/Users/me/.ssh "x"`}}
	prof := seatbeltProfile(pol, 4321)
	for _, want := range []string{
		"(deny file-write*)\n(allow file-write*\n",
		`(subpath "` + root + `")`,
		`(subpath "/private/tmp")`,
		`(deny file-write* (subpath "` + filepath.Join(root, ".git", "hooks") + `"))`,
		`(deny file-read* (subpath "/Users/me/.ssh \"x\""))`,
		"(deny network-outbound)\n(allow network-outbound (remote tcp \"localhost:4321\"))",
	} {
		if !strings.Contains(prof, want) {
			t.Errorf("profile lacks %q:\n%s", want, prof)
		}
	}
	if off := seatbeltProfile(Policy{Mode: Off}, 0); strings.Contains(off, "deny") {
		t.Errorf("mode off denies something:\n%s", off)
	}
}
