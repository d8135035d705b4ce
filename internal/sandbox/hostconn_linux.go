package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// hostConn is clawdcode's side of one sandbox host.
type hostConn struct {
	fd        int
	cmd       *exec.Cmd
	sup       Support
	port      int
	listener  int      // the proxy's listener until read serves it, else -1
	protected []string // Policy.Protected when the host was built
	writable  []string // Policy.Writable when the host was built

	// reapOnce: the host is waited for once, by whichever of read and
	// kill gets there first (exec.Cmd.Wait is not safe to call twice at
	// once). readDone is closed when read has returned (nil before read
	// starts).
	reapOnce sync.Once
	readDone chan struct{}

	mu      sync.Mutex
	next    int
	pending map[int]chan startReply
	running map[int]*Process
	dead    error // why the host is gone
	// fdClosed: fd was closed (under mu), so its number may be another
	// file's by now and is never used again.
	fdClosed bool
}

type startReply struct {
	pid   int
	pidfd int
	err   error
}

// readyTimeout bounds a host's setup, a last-resort net for a hang: it
// takes milliseconds.
const readyTimeout = 30 * time.Second

// attempt is one way to start a host: the namespaces it is cloned into.
type attempt struct {
	name              string
	user, pid, netns  bool
	mount, namespaced bool
}

// attempts are tried in order until a host starts: every namespace, then
// without a PID namespace (its /proc cannot always be mounted), then
// none (a system without user namespaces: Landlock and seccomp only).
func attempts(p Policy) []attempt {
	none := attempt{name: "no namespaces"}
	if p.Mode == Off {
		return []attempt{none}
	}
	net := !p.Network
	return []attempt{
		{name: "user, mount, PID and network namespaces", user: true, mount: true, pid: true, netns: net, namespaced: true},
		{name: "user, mount and network namespaces", user: true, mount: true, netns: net, namespaced: true},
		none,
	}
}

// startHost starts a host for p, trying each attempt in turn; what failed
// before the one that worked is in its Support's Problems.
func startHost(p Policy, px *proxy) (*hostConn, error) {
	var problems []string
	for _, a := range attempts(p) {
		h, err := launch(p, a)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", a.name, err))
			continue
		}
		h.sup.Problems = append(problems, h.sup.Problems...)
		if len(problems) > 0 && p.Mode != Off {
			h.sup.Problems = problems[:len(problems):len(problems)]
		}
		h.readDone = make(chan struct{})
		go h.read(px)
		return h, nil
	}
	return nil, errors.New(strings.Join(problems, "; "))
}

// launch starts one host and waits for it to be ready.
func launch(p Policy, a attempt) (*hostConn, error) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socket pair: %w", err)
	}
	hostEnd := os.NewFile(uintptr(pair[1]), "sandbox-host")
	cmd := &exec.Cmd{
		Path:       "/proc/self/exe",
		Args:       []string{os.Args[0], HelperArg},
		Env:        []string{},
		ExtraFiles: []*os.File{hostEnd},
		SysProcAttr: &syscall.SysProcAttr{
			Setsid: true,
		},
	}
	s := setup{Policy: p, UserNS: a.user, MountNS: a.mount, PidNS: a.pid, NetNS: a.netns, MapUID: -1, MapGID: -1}
	if a.namespaced {
		attr := cmd.SysProcAttr
		attr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
		if a.pid {
			attr.Cloneflags |= syscall.CLONE_NEWPID
		}
		if a.netns {
			attr.Cloneflags |= syscall.CLONE_NEWNET
		}
		if os.Geteuid() == 0 {
			// Everyone keeps their id: root's files stay root's, and root
			// still reads what it reads outside.
			all := []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
			attr.UidMappings, attr.GidMappings, attr.GidMappingsEnableSetgroups = all, all, true
		} else {
			// The parent, which is not dumpable, cannot write the child's
			// maps: the host writes its own, keeping what it needs to.
			attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETUID, unix.CAP_SETGID, unix.CAP_NET_ADMIN}
			s.MapUID, s.MapGID = os.Geteuid(), os.Getegid()
		}
	}
	err = cmd.Start()
	hostEnd.Close()
	if err != nil {
		unix.Close(pair[0])
		return nil, err
	}
	h := &hostConn{fd: pair[0], cmd: cmd, listener: -1, pending: map[int]chan startReply{}, running: map[int]*Process{}, protected: p.Protected(), writable: slices.Clone(p.Writable)}
	if err := h.handshake(s); err != nil {
		h.kill()
		return nil, err
	}
	return h, nil
}

// handshake sends the setup and reads the host's answer.
func (h *hostConn) handshake(s setup) error {
	if err := send(h.fd, message{Op: "setup", Setup: &s}); err != nil {
		return err
	}
	fds := []unix.PollFd{{Fd: int32(h.fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(readyTimeout/time.Millisecond))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return errors.New("the sandbox host did not answer")
		}
		break
	}
	m, got, err := recv(h.fd, make([]byte, maxPacket), make([]byte, unix.CmsgSpace(4*4)))
	if err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("the sandbox host exited while setting up")
		}
		return err
	}
	if m.Op != "ready" || m.Ready == nil {
		closeAll(got)
		return errors.New(orValue(m.Error, "the sandbox host did not start"))
	}
	h.sup = *m.Ready
	if m.Port > 0 && len(got) == 1 {
		h.port = m.Port
		h.listener = got[0]
	} else {
		closeAll(got)
	}
	return nil
}

func orValue(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// kill ends the host (and so everything it started) and reaps it. The
// socket is shut down first, so that the host sees its end close (as it
// would if clawdcode died) and read sees the end of it; the descriptor is
// closed only once read is done with it, so that no other file can take
// its number while read or start may still use it.
func (h *hostConn) kill() {
	h.mu.Lock()
	if !h.fdClosed {
		_ = unix.Shutdown(h.fd, unix.SHUT_RDWR)
	}
	h.mu.Unlock()
	_ = h.cmd.Process.Kill()
	h.reap()
	if h.readDone != nil {
		<-h.readDone
	}
	h.closeFD(errors.New("the sandbox host was ended"))
}

// reap waits for the host's process, once.
func (h *hostConn) reap() { h.reapOnce.Do(func() { _ = h.cmd.Wait() }) }

// closeFD closes the socket once, recording why the host is gone if
// nothing did before.
func (h *hostConn) closeFD(why error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dead == nil {
		h.dead = why
	}
	if !h.fdClosed {
		h.fdClosed = true
		unix.Close(h.fd)
	}
}

// read dispatches the host's messages until it is gone.
func (h *hostConn) read(px *proxy) {
	if h.listener >= 0 {
		if ln, err := listenerFrom(h.listener); err == nil {
			go px.serve(ln)
		}
		h.listener = -1
	}
	buf, oob := make([]byte, maxPacket), make([]byte, unix.CmsgSpace(4*4))
	var err error
	for {
		var m message
		var fds []int
		m, fds, err = recv(h.fd, buf, oob)
		if err != nil {
			break
		}
		h.dispatch(m, fds)
	}
	h.mu.Lock()
	if h.dead == nil {
		h.dead = fmt.Errorf("the sandbox host ended: %w", err)
	}
	dead := h.dead
	pending, running := h.pending, h.running
	h.pending, h.running = map[int]chan startReply{}, map[int]*Process{}
	h.mu.Unlock()
	for _, ch := range pending {
		ch <- startReply{err: dead, pidfd: -1}
	}
	for _, p := range running {
		p.finish(0, dead)
	}
	h.reap()
	h.closeFD(dead)
	close(h.readDone)
}

func (h *hostConn) dispatch(m message, fds []int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch m.Op {
	case "started":
		ch, ok := h.pending[m.ID]
		if !ok {
			closeAll(fds)
			return
		}
		delete(h.pending, m.ID)
		r := startReply{pid: m.Pid, pidfd: -1}
		if m.Error != "" {
			r.err = errors.New(m.Error)
		}
		if len(fds) == 1 {
			r.pidfd = fds[0]
		} else {
			closeAll(fds)
		}
		ch <- r
	case "exited":
		closeAll(fds)
		if p, ok := h.running[m.ID]; ok {
			delete(h.running, m.ID)
			p.finish(syscall.WaitStatus(m.Status), nil)
		}
	default:
		closeAll(fds)
	}
}

// start runs c in the host; out are the write ends of the command's
// output pipes (stdout and stderr, or one for both), which the host
// passes on.
func (h *hostConn) start(c Command, out []*os.File, p *Process) error {
	ch := make(chan startReply, 1)
	h.mu.Lock()
	if h.dead != nil {
		h.mu.Unlock()
		return h.dead
	}
	h.next++
	id := h.next
	h.pending[id] = ch
	// Registered before the host can answer: an exit that follows at
	// once finds it.
	h.running[id] = p
	fds := make([]int, len(out))
	for i, f := range out {
		fds[i] = int(f.Fd())
	}
	err := send(h.fd, message{Op: "start", ID: id, Argv: c.Argv, Env: c.Env, Dir: c.Dir}, fds...)
	if err != nil {
		delete(h.pending, id)
		delete(h.running, id)
	}
	h.mu.Unlock()
	if err != nil {
		return err
	}
	r := <-ch
	if r.err != nil {
		h.mu.Lock()
		delete(h.running, id)
		h.mu.Unlock()
		return r.err
	}
	p.Shown = r.pid
	if r.pidfd >= 0 {
		p.Pid = pidOfPidfd(r.pidfd)
		unix.Close(r.pidfd)
	}
	return nil
}

// pidOfPidfd reads the pid a pidfd refers to, in this process's PID
// namespace (0 once the process is gone).
func pidOfPidfd(fd int) int {
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Pid:"); ok {
			pid, _ := strconv.Atoi(strings.TrimSpace(v))
			return max(pid, 0)
		}
	}
	return 0
}

// stale reports whether the host no longer fits p: it is gone, or a
// protected path appeared or went, or a writable place was added
// (/add-dir), since it was built (its mounts and rules are
// fixed).
func (h *hostConn) stale(p Policy) bool {
	h.mu.Lock()
	dead := h.dead != nil
	h.mu.Unlock()
	return dead || !slices.Equal(h.protected, p.Protected()) || !slices.Equal(h.writable, p.Writable)
}
