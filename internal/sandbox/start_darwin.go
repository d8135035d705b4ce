package sandbox

import (
	"fmt"
	"os"
	"strings"
)

// sandboxExec is macOS's sandbox runner (Seatbelt); its path is fixed so
// that no PATH entry can stand in for it.
const sandboxExec = "/usr/bin/sandbox-exec"

// hostConn has no use on macOS: each command runs under sandbox-exec.
type hostConn struct{}

// support: sandbox-exec is there or not. This path is built for macOS
// by make cross but not run in CI, which is Linux.
func (s *Sandbox) support(m Mode) (Support, string) {
	if _, err := os.Stat(sandboxExec); err != nil {
		return Support{}, "sandbox-exec is not installed"
	}
	return Support{Seatbelt: true}, ""
}

// Start runs c under sandbox-exec with the mode's profile; on macOS a
// command outlives a clawdcode that is killed outright (there is no PID
// namespace); every other way out ends it (StopBackground).
func (s *Sandbox) Start(c Command) (*Process, error) {
	m := s.Mode()
	if c.Outside {
		m = Off
	}
	p := newProcess(s, m)
	run := c
	if m != Off {
		if _, why := s.support(m); why != "" {
			return nil, fmt.Errorf("no sandbox: %s", why)
		}
		port := 0
		if !s.cfg.Network {
			var err error
			if port, err = s.proxy.loopbackPort(); err != nil {
				return nil, err
			}
			run.Env = s.proxyEnv(run.Env, port)
		}
		run.Argv = append([]string{sandboxExec, "-p", seatbeltProfile(s.policy(m), port)}, c.Argv...)
	}
	return p, startPlain(run, p)
}

// Close stops the proxy.
func (s *Sandbox) Close() { s.proxy.close() }

// Describe says which sandbox is in force, for /status.
func (s *Sandbox) Describe() string {
	m := s.Mode()
	src := s.source(m)
	if m == Off {
		return fmt.Sprintf("off (%s): commands run as you do", src)
	}
	if _, why := s.support(m); why != "" {
		return fmt.Sprintf("none (%s asked for %s): %s; every command asks", src, m, why)
	}
	return strings.Join([]string{fmt.Sprintf("%s (%s)", m, src), "sandbox-exec", s.networkText(true)}, " · ")
}
