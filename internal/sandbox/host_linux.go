package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
	"kernel.org/pub/linux/libs/security/libcap/psx"
)

// HelperArg is the first argument with which clawdcode runs itself as a
// sandbox host. cli.Main looks for it before anything else.
const HelperArg = "__clawdcode_sandbox_host"

// controlFD is the host's end of the socket pair.
const controlFD = 3

// Helper runs the sandbox host when the process was started as one
// (os.Args[1] is HelperArg) and returns its exit status with ok set;
// otherwise it returns at once with ok unset. It costs one comparison.
func Helper() (code int, ok bool) {
	if len(os.Args) < 2 || os.Args[1] != HelperArg {
		return 0, false
	}
	return runHost(), true
}

// runHost is the sandbox host: it builds the sandbox its setup asks for
// in the namespaces it was cloned into (mounts, loopback, Landlock,
// seccomp), says what is in force, then starts commands on request and
// reports their ends, until the parent's end closes; then it ends every
// process it started and exits. In a PID namespace it is the namespace's
// init, and its exit ends every process in it.
func runHost() int {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE,
		syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGTSTP)
	buf, oob := make([]byte, maxPacket), make([]byte, unix.CmsgSpace(4*4))
	m, fds, err := recv(controlFD, buf, oob)
	closeAll(fds)
	if err != nil || m.Setup == nil {
		return 2
	}
	h := &host{setup: *m.Setup, shells: map[int]int{}}
	ready, listener, err := h.build()
	if err != nil {
		_ = send(controlFD, message{Op: "fatal", Error: err.Error()})
		return 1
	}
	reply := message{Op: "ready", Ready: &ready}
	var passed []int
	if listener >= 0 {
		reply.Port, passed = h.port, []int{listener}
	}
	if err := send(controlFD, reply, passed...); err != nil {
		return 1
	}
	closeAll(passed)
	h.serve(buf, oob)
	return 0
}

type host struct {
	setup setup
	port  int

	mu     sync.Mutex
	shells map[int]int // pid → command id, while the command's shell runs
}

// build sets the sandbox up, in order: ids, mounts, the loopback and the
// proxy's listener, then Landlock and seccomp (which forbid mounting).
func (h *host) build() (Support, int, error) {
	s := h.setup
	sup := Support{UserNS: s.UserNS, MountNS: s.MountNS, PidNS: s.PidNS, NetNS: s.NetNS}
	if s.UserNS && s.MapUID >= 0 {
		if err := mapSelf(s.MapUID, s.MapGID); err != nil {
			return sup, -1, fmt.Errorf("map the user into its namespace: %w", err)
		}
	}
	if s.MountNS {
		if err := buildMounts(s.Policy, s.PidNS); err != nil {
			return sup, -1, err
		}
	}
	if !s.PidNS {
		// Orphans come to the host, which can then end them.
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	}
	listener := -1
	if s.NetNS {
		fd, port, err := loopbackListener()
		if err != nil {
			return sup, -1, fmt.Errorf("set up the sandbox's loopback: %w", err)
		}
		listener, h.port = fd, port
	}
	if s.UserNS {
		// Capabilities the host needed to build; commands get none of
		// them through the ambient set.
		_ = allThreadsPrctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	}
	if s.Policy.Mode == Off {
		return sup, listener, nil
	}
	abi, err := restrictFiles(s.Policy, s.MountNS)
	if err != nil {
		return sup, -1, err
	}
	sup.Landlock = abi
	if abi == 0 {
		sup.Problems = append(sup.Problems, "the kernel has no Landlock")
	}
	if err := restrictSyscalls(!s.NetNS && !s.Policy.Network); err != nil {
		sup.Problems = append(sup.Problems, "seccomp: "+err.Error())
	} else {
		sup.Seccomp = true
	}
	return sup, listener, nil
}

// serve starts commands until the parent's end closes, then ends them.
func (h *host) serve(buf, oob []byte) {
	chld := make(chan os.Signal, 16)
	signal.Notify(chld, syscall.SIGCHLD)
	go func() {
		for range chld {
			h.reap()
		}
	}()
	for {
		m, fds, err := recv(controlFD, buf, oob)
		if err != nil {
			break // io.EOF: clawdcode is gone, however it ended
		}
		if m.Op == "start" && len(fds) >= 1 && len(m.Argv) > 0 {
			h.start(m, fds[0], fds[len(fds)-1])
		}
		closeAll(fds)
	}
	h.endAll()
}

// start runs one command in a session of its own (its process group is
// what KillShell and a timeout end) and says so, with a pidfd the parent
// reads the command's pid from.
func (h *host) start(m message, stdout, stderr int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	pidfd := -1
	pid, err := syscall.ForkExec(m.Argv[0], m.Argv, &syscall.ProcAttr{
		Dir:   m.Dir,
		Env:   m.Env,
		Files: []uintptr{devNull(), uintptr(stdout), uintptr(stderr)},
		Sys:   &syscall.SysProcAttr{Setsid: true, PidFD: &pidfd},
	})
	if err != nil {
		_ = send(controlFD, message{Op: "started", ID: m.ID, Error: fmt.Sprintf("start %s: %v", m.Argv[0], err)})
		return
	}
	h.shells[pid] = m.ID
	if pidfd < 0 {
		_ = send(controlFD, message{Op: "started", ID: m.ID, Pid: pid})
		return
	}
	_ = send(controlFD, message{Op: "started", ID: m.ID, Pid: pid}, pidfd)
	unix.Close(pidfd)
}

var devNullFD = sync.OnceValue(func() uintptr {
	fd, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return ^uintptr(0)
	}
	return uintptr(fd)
})

func devNull() uintptr { return devNullFD() }

// reap collects every child that has exited (orphans included: the host
// is their init or subreaper) and reports the commands' shells.
func (h *host) reap() {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
		h.mu.Lock()
		id, ok := h.shells[pid]
		if ok {
			delete(h.shells, pid)
			_ = send(controlFD, message{Op: "exited", ID: id, Status: int(ws)})
		}
		h.mu.Unlock()
	}
}

// endAll kills every process the host started, with everything they
// started. In a PID namespace the host's exit does it (the kernel kills a
// namespace whose init is gone); otherwise the host, their subreaper,
// kills its descendants until none is left.
func (h *host) endAll() {
	if h.setup.PidNS {
		return
	}
	for range 100 {
		kids := descendants(os.Getpid())
		if len(kids) == 0 {
			return
		}
		for _, pid := range kids {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		h.reap()
	}
}

// descendants lists the processes under pid, read from /proc.
func descendants(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(pid); ok {
			parent[pid] = ppid
		}
	}
	var out []int
	for pid := range parent {
		for p, hops := parent[pid], 0; hops < 64; p, hops = parent[p], hops+1 {
			if p == root {
				out = append(out, pid)
				break
			}
			if p <= 1 {
				break
			}
		}
	}
	return out
}

// parentOf reads a process's parent from /proc/PID/stat (after the
// command name, which may hold anything, in parentheses).
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}

// mapSelf maps the user's own uid and gid into the new user namespace,
// from inside it (the host kept CAP_SETUID and CAP_SETGID there through
// its ambient set).
func mapSelf(uid, gid int) error {
	if err := os.WriteFile("/proc/self/setgroups", []byte("deny"), 0); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.WriteFile("/proc/self/gid_map", fmt.Appendf(nil, "%d %d 1\n", gid, gid), 0); err != nil {
		return err
	}
	return os.WriteFile("/proc/self/uid_map", fmt.Appendf(nil, "%d %d 1\n", uid, uid), 0)
}

// allThreadsPrctl applies a prctl to every thread of the process.
func allThreadsPrctl(option, a2, a3, a4, a5 uintptr) error {
	_, _, e := psx.Syscall6(syscall.SYS_PRCTL, option, a2, a3, a4, a5, 0)
	if e != 0 {
		return e
	}
	return nil
}
