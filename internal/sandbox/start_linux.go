package sandbox

import (
	"fmt"
	"strings"
	"time"
)

// host returns the running host of mode m, starting one when there is
// none or the one there no longer fits (stale).
func (s *Sandbox) host(m Mode) (*hostConn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hostLocked(m)
}

// Prewarm starts the host of the mode a command started now runs in, in
// the background, when none runs: the model's reply has begun a Bash
// call, and its command will find the host ready instead of waiting for
// it to start. It never waits, and does nothing once the sandbox is
// closed.
func (s *Sandbox) Prewarm() {
	m := s.Mode()
	go func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.closed {
			_, _ = s.hostLocked(m)
		}
	}()
}

// hostLocked is host with s.mu held.
func (s *Sandbox) hostLocked(m Mode) (*hostConn, error) {
	p := s.policy(m)
	if h := s.hosts[m]; h != nil {
		fits, lost := h.fits(p)
		if fits {
			return h, nil
		}
		if lost != "" {
			// Its commands could write what it no longer protects: they
			// end, and the next ones run in a new host.
			delete(s.hosts, m)
			h.endBecause(lostError(lost))
		}
	}
	if why, ok := s.failed[m]; ok {
		return nil, fmt.Errorf("no sandbox host: %s", why)
	}
	// A stale host keeps running what it started; clawdcode's exit ends it.
	if made := p.prepare(); made != "" {
		s.madeGit = made
	}
	p = s.policy(m)
	h, err := startHost(p, s.proxy)
	if err != nil {
		s.failed[m] = err.Error()
		return nil, fmt.Errorf("no sandbox host: %w", err)
	}
	s.hosts[m] = h
	return h, nil
}

// lostError is what the commands of a host get when it is ended for a
// protected path replaced from outside.
func lostError(path string) error {
	return fmt.Errorf("ended: %s changed outside the sandbox, which then no longer kept it read-only; run the command again", path)
}

// Replace runs write, which replaces path in place of clawdcode (its
// Write or Edit tool): a host that keeps path read-only would stop doing
// so once a new file is renamed over it (the rename takes the read-only
// mount off the old file, in the host too), and a command still running
// there, in the background, could write the new one. Such a host is ended
// first, with what it runs, and no other starts until write has returned:
// the next command runs in a new host that protects the new file.
func (s *Sandbox) Replace(path string, write func() error) error {
	s.mu.Lock()
	var guarding []Mode
	for m, h := range s.hosts {
		if h.guards(path) {
			guarding = append(guarding, m)
		}
	}
	if len(guarding) == 0 {
		s.mu.Unlock()
		return write()
	}
	defer s.mu.Unlock()
	for _, m := range guarding {
		h := s.hosts[m]
		delete(s.hosts, m)
		h.endBecause(fmt.Errorf("ended: clawdcode replaced %s, which the sandbox kept read-only and could no longer keep so for the commands already running; run the command again", path))
	}
	return write()
}

// support is what the host of mode m has in force, or why there is none.
func (s *Sandbox) support(m Mode) (Support, string) {
	h, err := s.host(m)
	if err != nil {
		return Support{}, err.Error()
	}
	return h.sup, ""
}

// Start runs c: inside the sandbox of the current mode, or outside it
// (c.Outside, or mode off) in a host that only ends it with clawdcode.
// Where no host can start at all, c runs as a plain child process.
func (s *Sandbox) Start(c Command) (*Process, error) {
	m := s.Mode()
	if c.Outside {
		m = Off
	}
	h, err := s.host(m)
	if err != nil && m != Off {
		return nil, err
	}
	p := newProcess(s, m)
	if err != nil {
		return p, startPlain(c, p)
	}
	env := c.Env
	if h.port > 0 {
		env = s.proxyEnv(env, h.port)
	}
	readers, writers, err := pipes(c)
	if err != nil {
		return nil, err
	}
	p.copyOutput(c.OutputGrace, readers)
	run := c
	run.Env = env
	err = h.start(run, writers, p)
	closeFiles(writers)
	if err != nil {
		// The pipes' copies end at once: nothing holds their write ends.
		return nil, err
	}
	return p, nil
}

// Close ends every host, and with them every command they started; the
// process's exit does the same.
func (s *Sandbox) Close() {
	s.mu.Lock()
	s.closed = true
	hosts := s.hosts
	s.hosts = map[Mode]*hostConn{}
	s.mu.Unlock()
	for _, h := range hosts {
		h.end()
	}
	s.removeMadeGit()
	s.proxy.close()
}

// Describe says which sandbox is in force for a command started now and
// why, for /status.
func (s *Sandbox) Describe() string {
	m := s.Mode()
	src := s.source(m)
	if m == Off {
		return fmt.Sprintf("off (%s): commands run as you do, and end when clawdcode does", src)
	}
	sup, why := s.support(m)
	if why == "" {
		why = sup.missing(m, s.cfg.Network)
	}
	if why != "" {
		return fmt.Sprintf("none (%s asked for %s): %s; every command asks", src, m, why)
	}
	parts := []string{fmt.Sprintf("%s (%s)", m, src), fmt.Sprintf("Landlock ABI %d, seccomp", sup.Landlock)}
	var ns []string
	for _, n := range []struct {
		on   bool
		name string
	}{{sup.UserNS, "user"}, {sup.MountNS, "mount"}, {sup.PidNS, "PID"}, {sup.NetNS, "network"}} {
		if n.on {
			ns = append(ns, n.name)
		}
	}
	if len(ns) > 0 {
		parts = append(parts, strings.Join(ns, ", ")+" namespaces")
	}
	parts = append(parts, s.networkText(sup.NetNS))
	return strings.Join(parts, " · ")
}

var _ = time.Second
