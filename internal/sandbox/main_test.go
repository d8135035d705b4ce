package sandbox

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// probeEnv makes the test binary a probe run inside the sandbox
// (TestHostRestrictions): it tries what its value names and exits 0 when
// the sandbox refused it.
const probeEnv = "SANDBOX_TEST_PROBE"

// TestMain lets the test binary be its own sandbox host, as clawdcode is,
// and a probe.
func TestMain(m *testing.M) {
	if code, ok := Helper(); ok {
		os.Exit(code)
	}
	if what := os.Getenv(probeEnv); what != "" {
		os.Exit(probe(what))
	}
	os.Exit(m.Run())
}

func probe(what string) int {
	var err error
	switch what {
	case "unix-socket":
		var fd int
		if fd, err = unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0); err == nil {
			unix.Close(fd)
		}
	case "user-namespace":
		err = unix.Unshare(unix.CLONE_NEWUSER)
	case "mount":
		err = unix.Mount("tmpfs", os.TempDir(), "tmpfs", 0, "")
	case "ptrace":
		err = unix.PtraceAttach(1)
	}
	if errors.Is(err, unix.EPERM) {
		return 0
	}
	return 1
}
