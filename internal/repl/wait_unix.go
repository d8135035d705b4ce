//go:build unix

package repl

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// waitReadable blocks until fd has input or ctx ends. It polls in short
// slices instead of parking a goroutine in read(2): such a goroutine could
// not be stopped and would swallow the next line the user types.
func waitReadable(ctx context.Context, fd int) error {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := unix.Poll(fds, 50)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("wait for input: %w", err)
		}
		if n > 0 {
			return nil
		}
	}
}
