package sandbox

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Config is what a Sandbox is built from (the resolved [sandbox] keys and
// --sandbox, by internal/config and internal/cli).
type Config struct {
	Mode Mode
	// Source says where Mode came from ("--sandbox", a file's path,
	// "default"), for /status.
	Source string
	// Root is the project root; Home is CLAWDCODE_HOME.
	Root, Home string
	// Writable and DenyRead are absolute (Resolve).
	Writable, DenyRead []string
	// Network: commands reach any host directly.
	Network bool
	// AllowDomains are the hosts commands reach through the proxy;
	// AllowHost, when set, allows more (WebFetch(domain:…) rules, asked
	// at each connection so that a rule allowed later counts).
	AllowDomains []string
	AllowHost    func(host string) bool
	// DenyHost, when set, refuses a host whatever allows it (a deny
	// rule wins).
	DenyHost func(host string) bool
	// Plan reports whether plan mode is on: commands then run read-only.
	Plan func() bool
	// Warn is told once when commands cannot be contained here.
	Warn func(string)
}

// Sandbox runs the commands of one clawdcode process. On Linux each mode
// in use has one sandbox host, a copy of clawdcode started on first use
// (host_linux.go), that starts every command of that mode inside it:
// commands of one session share its network namespace, so a server a
// background command started is reachable by the next command. Every
// process it started ends when clawdcode does, however it ends. Safe for
// concurrent use.
type Sandbox struct {
	cfg   Config
	proxy *proxy

	mu     sync.Mutex
	hosts  map[Mode]*hostConn
	failed map[Mode]string // why a mode's host could not start
	warned bool

	// added are the places commands may write beside cfg.Writable,
	// given while running (AddWritable).
	addedMu sync.Mutex
	added   []string
}

// AddWritable lets the commands started from now on write under dir too
// (/add-dir); dir is absolute. A host whose policy no longer fits is
// replaced at its next command.
func (s *Sandbox) AddWritable(dir string) {
	s.addedMu.Lock()
	s.added = append(s.added, dir)
	s.addedMu.Unlock()
}

// New returns the sandbox of cfg; nothing starts until a command does.
func New(cfg Config) *Sandbox {
	if real, err := filepath.EvalSymlinks(cfg.Root); err == nil {
		cfg.Root = real
	}
	s := &Sandbox{cfg: cfg, hosts: map[Mode]*hostConn{}, failed: map[Mode]string{}}
	s.proxy = newProxy(s.allowed)
	return s
}

// Mode is the mode a command started now runs in: the configured one, or
// read-only in plan mode.
func (s *Sandbox) Mode() Mode {
	if s.cfg.Mode != Off && s.cfg.Plan != nil && s.cfg.Plan() {
		return ReadOnly
	}
	return s.cfg.Mode
}

// policy is the Policy of mode m.
func (s *Sandbox) policy(m Mode) Policy {
	s.addedMu.Lock()
	writable := append(slices.Clip(s.cfg.Writable), s.added...)
	s.addedMu.Unlock()
	return Policy{Mode: m, Root: s.cfg.Root, TempDirs: tempDirs(), Writable: writable,
		DenyRead: s.cfg.DenyRead, Network: s.cfg.Network, Home: s.cfg.Home}
}

// allowed is the proxy's rule: a host of allow_domains or one a rule
// allows.
func (s *Sandbox) allowed(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if s.cfg.DenyHost != nil && s.cfg.DenyHost(host) {
		return false
	}
	for _, d := range s.cfg.AllowDomains {
		if strings.EqualFold(strings.TrimSpace(d), host) {
			return true
		}
	}
	return s.cfg.AllowHost != nil && s.cfg.AllowHost(host)
}

// Contained reports whether a command started now, inside the sandbox,
// would be contained: its mode is not off and the system offers every
// part of it. The first call may start the mode's host to find out; when
// the answer is no, Warn hears it once.
func (s *Sandbox) Contained() bool {
	m := s.Mode()
	if m == Off {
		return false
	}
	sup, why := s.support(m)
	if why == "" {
		why = sup.missing(m, s.cfg.Network)
	}
	if why != "" {
		s.warnOnce(fmt.Sprintf("no sandbox for commands here (%s): every command asks, as in default mode", why))
		return false
	}
	return true
}

func (s *Sandbox) warnOnce(msg string) {
	s.mu.Lock()
	first := !s.warned
	s.warned = true
	s.mu.Unlock()
	if first && s.cfg.Warn != nil {
		s.cfg.Warn(msg)
	}
}

// missing says what of the sandbox of mode m the system did not give,
// "" when nothing.
func (sup Support) missing(m Mode, network bool) string {
	if sup.Seatbelt {
		return ""
	}
	var out []string
	if sup.Landlock == 0 {
		out = append(out, "no Landlock")
	}
	if !sup.Seccomp {
		out = append(out, "no seccomp")
	}
	if m == WorkspaceWrite && !sup.MountNS {
		out = append(out, "no mount namespace to keep .git/config, .git/hooks and .clawdcode read-only")
	}
	out = append(out, sup.Problems...)
	_ = network
	return strings.Join(out, "; ")
}

// Support is what a sandbox host could put in force.
type Support struct {
	Seatbelt bool `json:"-"`        // macOS: sandbox-exec
	Landlock int  `json:"landlock"` // the kernel's Landlock ABI (0: none)
	Seccomp  bool `json:"seccomp"`
	UserNS   bool `json:"userns"`
	MountNS  bool `json:"mountns"`
	PidNS    bool `json:"pidns"`
	NetNS    bool `json:"netns"`
	// Problems are what could not be set up, in words.
	Problems []string `json:"problems,omitempty"`
}

// Command is one command to run.
type Command struct {
	// Argv[0] is an absolute path.
	Argv []string
	Env  []string
	Dir  string
	// Output receives stdout and stderr, interleaved as written, or
	// stdout only when Stderr is set.
	Output, Stderr io.Writer
	// Outside runs the command outside the sandbox (Bash with sandbox
	// false, or mode off); it still ends with clawdcode.
	Outside bool
	// OutputGrace bounds the wait for output once the command's shell
	// has exited (a background job may hold the pipe open).
	OutputGrace time.Duration
}

// Process is a started command.
type Process struct {
	// Pid is the command's pid in clawdcode's PID namespace; it leads the
	// command's process group (0 when it could not be read: it had
	// already ended). Shown is its pid as commands in the sandbox see it.
	Pid, Shown int
	// Mode is the mode it runs in (Off for a command outside).
	Mode Mode

	exited  chan struct{}
	status  syscall.WaitStatus
	err     error
	started time.Time
	sb      *Sandbox
	processState
}

// Done is closed once the command's shell has exited and its output is
// in (or OutputGrace passed).
func (p *Process) Done() <-chan struct{} { return p.exited }

// Wait returns how the shell ended, once Done is closed.
func (p *Process) Wait() (syscall.WaitStatus, error) {
	<-p.exited
	return p.status, p.err
}
