package secrets

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Protect keeps the process's credentials out of reach of its children
// (and of every other process of the same user), on Linux:
//
//  1. /proc/<pid>/environ shows the block of memory the process's
//     environment was passed in, whatever the process later unsets, and
//     root reads it whatever the process's settings. The Go runtime copies
//     the environment out of that block when it starts and never reads it
//     again, so Protect rewrites the block in place without the variables
//     whose names look secret: os.Getenv still finds them, /proc does not.
//  2. It makes the process non-dumpable (PR_SET_DUMPABLE 0): its memory,
//     descriptors and environment under /proc, and ptrace, are closed to
//     other processes of the same user (not to root), and no core dump is
//     written.
//
// It is cheap (a few system calls, no re-exec). A failure leaves the
// process running as it was and is returned for a warning.
func Protect() error {
	if err := scrubEnvironBlock(nil); err != nil {
		return fmt.Errorf("hide the credentials in /proc/%d/environ: %w", os.Getpid(), err)
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("make the process non-dumpable: %w", err)
	}
	return nil
}

// Hide takes more variables out of the process's /proc environment, by
// name, once they are known to hold credentials (a configured api_key_env
// whose name does not look secret). Protect has already done the rest.
func Hide(names ...string) error {
	if len(names) == 0 {
		return nil
	}
	// A non-dumpable process's /proc entries belong to root: for the
	// moment of the rewrite, /proc/self/mem must be the user's again.
	if dumpable, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err == nil && dumpable == 0 {
		if err := unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0); err == nil {
			defer unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
		}
	}
	if err := scrubEnvironBlock(names); err != nil {
		return fmt.Errorf("hide %s in /proc/%d/environ: %w", strings.Join(names, ", "), os.Getpid(), err)
	}
	return nil
}

// scrubEnvironBlock rewrites the process's initial environment block
// without its secret entries (and those named in also); the block keeps
// its length, padded with NUL bytes (empty entries to a reader of
// /proc/<pid>/environ).
func scrubEnvironBlock(also []string) error {
	start, end, err := environBlock()
	if err != nil {
		return err
	}
	if end <= start {
		return nil
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer mem.Close()
	block := make([]byte, end-start)
	if _, err := mem.ReadAt(block, start); err != nil {
		return fmt.Errorf("read the environment block: %w", err)
	}
	clean := make([]byte, 0, len(block))
	found := false
	for entry := range bytes.SplitSeq(block, []byte{0}) {
		if len(entry) == 0 {
			continue
		}
		name, _, _ := bytes.Cut(entry, []byte("="))
		if IsSecretName(string(name)) || slices.Contains(also, string(name)) {
			found = true
			continue
		}
		clean = append(append(clean, entry...), 0)
	}
	if !found {
		return nil
	}
	clean = append(clean, make([]byte, len(block)-len(clean))...)
	if _, err := mem.WriteAt(clean, start); err != nil {
		return fmt.Errorf("rewrite the environment block: %w", err)
	}
	return nil
}

// environBlock reads where the initial environment block lies: fields 50
// and 51 (env_start, env_end) of /proc/self/stat, counted after the
// command name, which is in parentheses and may hold spaces.
func environBlock() (start, end int64, err error) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, err
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("unexpected /proc/self/stat")
	}
	fields := strings.Fields(string(stat[i+1:])) // fields[0] is field 3
	const envStartField, envEndField = 50, 51
	if len(fields) < envEndField-2 {
		return 0, 0, fmt.Errorf("/proc/self/stat has no env_start/env_end (Linux before 3.5)")
	}
	start, err1 := strconv.ParseInt(fields[envStartField-3], 10, 64)
	end, err2 := strconv.ParseInt(fields[envEndField-3], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("unexpected env_start/env_end in /proc/self/stat")
	}
	return start, end, nil
}
