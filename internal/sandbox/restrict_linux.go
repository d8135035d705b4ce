package sandbox

import (
	"fmt"
	"net"
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// buildMounts shapes the host's own mount namespace (nothing of it is
// seen outside): a /proc of its PID namespace, the protected paths
// (Policy.Protected) bound read-only over themselves — a write there
// fails with EROFS, and replacing or renaming them with EBUSY, even where
// Landlock allows writing the directory around them —, the denied paths
// hidden under empty read-only mounts, and a /dev/shm of its own.
func buildMounts(p Policy, pidNS bool) error {
	// Nothing mounted here may reach the parent's namespace; mounts made
	// outside later still come in.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("make the mounts private: %w", err)
	}
	if pidNS {
		if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("mount /proc for the PID namespace: %w", err)
		}
	}
	for _, path := range p.Protected() {
		if err := bindReadOnly(path, path); err != nil {
			return fmt.Errorf("protect %s: %w", path, err)
		}
	}
	for _, path := range p.DenyRead {
		if err := hide(path); err != nil {
			return fmt.Errorf("hide %s ([sandbox] deny_read): %w", path, err)
		}
	}
	if p.Mode != Off {
		_ = unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777")
	}
	return nil
}

// bindReadOnly mounts src over dst read-only, keeping the flags the
// mount under it is locked with (a user namespace may not clear them).
func bindReadOnly(src, dst string) error {
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	var st unix.Statfs_t
	flags := uintptr(0)
	if err := unix.Statfs(dst, &st); err == nil {
		flags = lockedFlags(st.Flags)
	}
	return unix.Mount("", dst, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|flags, "")
}

func lockedFlags(f int64) uintptr {
	var out uintptr
	for st, ms := range map[int64]uintptr{
		unix.ST_NOSUID: unix.MS_NOSUID, unix.ST_NODEV: unix.MS_NODEV, unix.ST_NOEXEC: unix.MS_NOEXEC,
		unix.ST_NOATIME: unix.MS_NOATIME, unix.ST_NODIRATIME: unix.MS_NODIRATIME, unix.ST_RELATIME: unix.MS_RELATIME,
	} {
		if f&st != 0 {
			out |= ms
		}
	}
	return out
}

// hide puts an empty read-only directory over a denied directory, and
// /dev/null (read-only) over a denied file.
func hide(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return nil // nothing there to read
	}
	if info.IsDir() {
		return unix.Mount("tmpfs", path, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=000")
	}
	return bindReadOnly("/dev/null", path)
}

// loopbackListener brings the new network namespace's loopback up and
// opens the proxy's listener on it; the descriptor goes to clawdcode,
// which serves the proxy on it from outside.
func loopbackListener() (fd, port int, err error) {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, 0, err
	}
	defer unix.Close(s)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return -1, 0, err
	}
	if err := unix.IoctlIfreq(s, unix.SIOCGIFFLAGS, ifr); err != nil {
		return -1, 0, fmt.Errorf("read lo's flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, ifr); err != nil {
		return -1, 0, fmt.Errorf("bring lo up: %w", err)
	}
	lfd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, 0, err
	}
	if err := unix.Bind(lfd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(lfd)
		return -1, 0, err
	}
	if err := unix.Listen(lfd, 128); err != nil {
		unix.Close(lfd)
		return -1, 0, err
	}
	sa, err := unix.Getsockname(lfd)
	if err != nil {
		unix.Close(lfd)
		return -1, 0, err
	}
	return lfd, sa.(*unix.SockaddrInet4).Port, nil
}

// listenerFrom wraps a received listening socket.
func listenerFrom(fd int) (net.Listener, error) {
	f := os.NewFile(uintptr(fd), "sandbox-proxy")
	defer f.Close()
	return net.FileListener(f)
}

// handledFS are the file system rights Landlock takes away unless a rule
// gives them back: all it knows but ioctl on devices (the commands' own
// terminals and pipes need those, and a device's ioctls are already
// bounded by the user namespace).
const handledFS = landlock.AccessFSSet((1<<17)-1) &^ landlock.AccessFSSet(ll.AccessFSIoctlDev)

// restrictFiles applies the Landlock policy to the host, and so to every
// command it starts: read anywhere (deny_read is the mounts' job), write
// only under the writable roots (the protected paths under them are
// read-only mounts), a few devices, and — with a mount namespace — the
// host's own /dev/shm. Signals and abstract sockets cannot leave the
// sandbox. It returns the kernel's Landlock ABI (0: none, nothing done).
func restrictFiles(p Policy, mountNS bool) (int, error) {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi <= 0 {
		return 0, nil
	}
	writable := p.WritableRoots()
	if mountNS {
		writable = append(writable, "/dev/shm")
	}
	cfg := landlock.Config{
		HandledAccessFS: handledFS,
		Scoped:          landlock.ScopedSet(ll.ScopeSignal | ll.ScopeAbstractUnixSocket),
	}.BestEffort()
	err = cfg.Restrict(
		landlock.RODirs("/"),
		landlock.RWDirs(writable...).WithRefer().IgnoreIfMissing(),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx").IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts").IgnoreIfMissing(),
	)
	if err != nil {
		return 0, fmt.Errorf("landlock: %w", err)
	}
	return abi, nil
}
