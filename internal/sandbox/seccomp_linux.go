package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The seccomp filter is assembled here with x/net/bpf over x/sys's
// syscall numbers, not with a seccomp library: the one that fits
// (elastic/go-seccomp-bpf) builds its tables of every architecture's
// syscalls when its package is initialised — 165 kB and about a
// millisecond at every start of clawdcode, sandboxed commands or not —,
// while the filter needs about forty numbers of one architecture.

// deniedSyscalls fail with EPERM in the sandbox: loading kernel code,
// mounting (Landlock forbids it too), new namespaces (each a way around
// the sandbox's and a large surface of the kernel), tracing and reading
// other processes' memory, keys, the clock, rebooting, and handles to
// files by number (a way around paths). archDenied adds the
// architecture's own (seccomp_amd64.go).
var deniedSyscalls = append([]uintptr{
	unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE, unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD,
	unix.SYS_REBOOT, unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_MOVE_MOUNT, unix.SYS_OPEN_TREE,
	unix.SYS_FSOPEN, unix.SYS_FSMOUNT, unix.SYS_FSCONFIG, unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR,
	unix.SYS_UNSHARE, unix.SYS_SETNS, unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV,
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT, unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_ACCT,
	unix.SYS_QUOTACTL, unix.SYS_SETTIMEOFDAY, unix.SYS_CLOCK_SETTIME, unix.SYS_CLOCK_ADJTIME, unix.SYS_ADJTIMEX,
	unix.SYS_SYSLOG,
}, archDenied...)

// unknownSyscalls fail with ENOSYS, so that a C library falls back to
// what the filter can read: clone3 passes its flags in memory (clone's
// are an argument), io_uring does its work where seccomp does not look.
var unknownSyscalls = []uintptr{unix.SYS_CLONE3, unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER}

// namespaceFlags are clone's flags that make a namespace.
const namespaceFlags = unix.CLONE_NEWNS | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWUSER |
	unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWCGROUP

// Offsets in struct seccomp_data: the syscall's number, the
// architecture, and the low half of the first argument (little-endian,
// as amd64 and arm64 are).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
)

const (
	retAllow = unix.SECCOMP_RET_ALLOW
	retEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retNOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
)

// filterProgram is the sandbox's filter: another architecture's calls
// (and x32's on amd64) fail with ENOSYS; the denied and unknown calls
// fail; socket fails for Unix sockets (a daemon's socket — Docker's,
// systemd's — would be a way out whatever the file rules say) and, with
// noNetwork (no network namespace to contain them), for IP and packet
// sockets; clone fails when it would make a namespace; the rest runs.
func filterProgram(noNetwork bool) ([]bpf.RawInstruction, error) {
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: auditArch, SkipTrue: 1},
		bpf.RetConstant{Val: retNOSYS},
		bpf.LoadAbsolute{Off: offNr, Size: 4},
	}
	if x32Bit != 0 {
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: x32Bit, SkipFalse: 1}, bpf.RetConstant{Val: retNOSYS})
	}
	for _, group := range []struct {
		nrs []uintptr
		ret uint32
	}{{deniedSyscalls, retEPERM}, {unknownSyscalls, retNOSYS}} {
		for _, nr := range group.nrs {
			prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(nr), SkipFalse: 1}, bpf.RetConstant{Val: group.ret})
		}
	}
	domains := []uint32{unix.AF_UNIX}
	if noNetwork {
		domains = append(domains, unix.AF_INET, unix.AF_INET6, unix.AF_PACKET)
	}
	// socket: the accumulator still holds the number when this is not it.
	prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_SOCKET, SkipFalse: uint8(2 + 2*len(domains))},
		bpf.LoadAbsolute{Off: offArg0, Size: 4})
	for _, d := range domains {
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: d, SkipFalse: 1}, bpf.RetConstant{Val: retEPERM})
	}
	prog = append(prog, bpf.RetConstant{Val: retAllow},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_CLONE, SkipFalse: 4},
		bpf.LoadAbsolute{Off: offArg0, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: namespaceFlags, SkipFalse: 1},
		bpf.RetConstant{Val: retEPERM},
		bpf.RetConstant{Val: retAllow},
		bpf.RetConstant{Val: retAllow},
	)
	return bpf.Assemble(prog)
}

// restrictSyscalls loads the filter on every thread of the host, and so
// of every command it starts.
func restrictSyscalls(noNetwork bool) error {
	raw, err := filterProgram(noNetwork)
	if err != nil {
		return fmt.Errorf("assemble the filter: %w", err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, in := range raw {
		filter[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// Without privilege a filter needs no_new_privs (Landlock set it on
	// every thread already when it ran); TSYNC puts the filter on every
	// thread.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}
