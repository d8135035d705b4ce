//go:build unix

package storage

import (
	"os/signal"
	"syscall"
)

// limitFileSize makes every write past limit bytes fail with EFBIG, as a
// full disk fails a write: SIGXFSZ is ignored so the write returns an
// error instead of killing the process.
func limitFileSize(limit uint64) error {
	signal.Ignore(syscall.SIGXFSZ)
	return syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit})
}
