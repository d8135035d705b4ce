// Command launcher runs one program and reports its wall time, peak
// resident set size and CPU time, for the benchmarks of package perf.
//
// It exists because a child started straight from the benchmark process
// cannot be measured: Go starts children with vfork (CLONE_VM), and Linux
// folds the parent's RSS high-water mark into the child's ru_maxrss at
// exec, so a 9 MiB child of a 200 MiB test process reports 200 MiB. This
// launcher is small, so the floor it passes on to its child stays far
// below anything clawdcode uses.
//
// Usage: launcher <result file> <program> [args...]
//
// The program inherits stdin, stdout, stderr, the environment and the
// working directory. The result file receives one line,
// "<wall ns> <maxrss KiB> <exit code> <cpu ns>" (CPU = user + system, the
// child's own); the launcher's own exit status is
// 0 unless the program could not be started.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: launcher <result file> <program> [args...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		fmt.Fprintln(os.Stderr, "launcher:", err)
		os.Exit(1)
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	var maxrss int64
	if ru != nil {
		maxrss = ru.Maxrss
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	line := fmt.Sprintf("%d %d %d %d\n", wall.Nanoseconds(), maxrss, cmd.ProcessState.ExitCode(), cpu.Nanoseconds())
	if err := os.WriteFile(os.Args[1], []byte(line), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "launcher:", err)
		os.Exit(1)
	}
}
