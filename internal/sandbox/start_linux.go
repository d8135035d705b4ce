package sandbox

import (
	"fmt"
	"strings"
	"time"
)

// host returns the running host of mode m, starting one when there is
// none or the one there no longer fits (stale).
func (s *Sandbox) host(m Mode) (*hostConn, error) {
	p := s.policy(m)
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.hosts[m]; h != nil && !h.stale(p) {
		return h, nil
	}
	if why, ok := s.failed[m]; ok {
		return nil, fmt.Errorf("no sandbox host: %s", why)
	}
	// A stale host keeps running what it started; clawdcode's exit ends it.
	p.prepare()
	p = s.policy(m)
	h, err := startHost(p, s.proxy)
	if err != nil {
		s.failed[m] = err.Error()
		return nil, fmt.Errorf("no sandbox host: %w", err)
	}
	s.hosts[m] = h
	return h, nil
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
	hosts := s.hosts
	s.hosts = map[Mode]*hostConn{}
	s.mu.Unlock()
	for _, h := range hosts {
		h.kill()
	}
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
