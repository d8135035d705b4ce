package harness

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"syscall"
	"time"
)

// WaitLine waits until the file at path holds a whole line (a command
// writing its pid, say) and returns it trimmed, or "" when it does not
// within limit.
func WaitLine(path string, limit time.Duration) string {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && bytes.HasSuffix(b, []byte("\n")) {
			return strings.TrimSpace(string(b))
		}
	}
	return ""
}

// GroupGone waits until no process of group pgid is left and reports
// whether that happened within limit: kill(-pgid, 0) fails with ESRCH once
// the last member has exited and been reaped.
func GroupGone(pgid int, limit time.Duration) bool {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
			return true
		}
	}
	return false
}
