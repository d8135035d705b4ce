package sandbox

import "golang.org/x/sys/unix"

const (
	auditArch = unix.AUDIT_ARCH_X86_64
	// x32Bit marks the x32 ABI's calls, which take other numbers.
	x32Bit = 0x40000000
)

// archDenied: port I/O, which only x86 has.
var archDenied = []uintptr{unix.SYS_IOPL, unix.SYS_IOPERM}
