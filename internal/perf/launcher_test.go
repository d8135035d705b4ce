package perf

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// ballast inflates this process's RSS high-water mark.
var ballast []byte

// TestLauncherReportsTheChildsOwnPeak is why the launcher exists: a child
// started straight from a big process reports the parent's peak RSS as its
// own; started through the launcher, it reports its own.
func TestLauncherReportsTheChildsOwnPeak(t *testing.T) {
	launcher := launcherProgram.build(t)
	true_, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1) on PATH")
	}
	const ballastMiB = 256
	ballast = make([]byte, ballastMiB<<20)
	for i := range ballast {
		ballast[i] = 1 // touch every page, so it counts in RSS
	}
	defer func() { ballast = nil }()

	direct := exec.Command(true_)
	if err := direct.Run(); err != nil {
		t.Fatal(err)
	}
	directKiB := direct.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	if directKiB < ballastMiB<<10 {
		// The kernel no longer folds the parent's peak in: the launcher is
		// then harmless, and this test has nothing left to show.
		t.Logf("direct child reports %d KiB: the kernel does not inherit the parent's peak", directKiB)
	}

	result := filepath.Join(t.TempDir(), "result")
	if out, err := exec.Command(launcher, result, true_).CombinedOutput(); err != nil {
		t.Fatalf("launcher: %v\n%s", err, out)
	}
	line, err := os.ReadFile(result)
	if err != nil {
		t.Fatal(err)
	}
	var wall, rss, code int64
	if _, err := fmt.Sscan(string(line), &wall, &rss, &code); err != nil {
		t.Fatalf("result %q: %v", line, err)
	}
	if code != 0 || wall <= 0 {
		t.Fatalf("result %q: want exit 0 and a wall time", line)
	}
	if rss <= 0 || rss > 32<<10 {
		t.Fatalf("launcher reports true(1) at %d KiB (direct: %d KiB); want its own few MiB", rss, directKiB)
	}
}
