package sandbox

import (
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// retryHint ends every note: the way out the model may take.
const retryHint = `retry with Bash {"sandbox": false} if it must (the user is asked)`

// maxNotes bounds the lines one result gets.
const maxNotes = 4

// Notes are the lines the command's result gets for what the sandbox
// refused it — a write outside the writable places or to a protected
// path, a connection — read from its output and from the proxy, one line
// each, each naming what was refused. A command outside the sandbox gets
// none.
func (p *Process) Notes(output string) []string {
	if p.Mode == Off || p.sb == nil {
		return nil
	}
	pol := p.sb.policy(p.Mode)
	end := p.ended
	if end.IsZero() {
		end = time.Now()
	}
	var notes []string
	add := func(n string) {
		if len(notes) < maxNotes && !slices.Contains(notes, n) {
			notes = append(notes, n)
		}
	}
	for _, target := range p.sb.proxy.refusals(p.started, end) {
		add(fmt.Sprintf("sandbox: refused a connection to %s: not an allowed host ([sandbox] allow_domains or a "+
			"WebFetch(domain:…) rule allows one); %s", target, retryHint))
	}
	for _, n := range writeNotes(pol, deniedPaths(output, pol.Root)) {
		add(n)
	}
	if !pol.Network {
		for _, target := range loopbackRefusals(output) {
			add(fmt.Sprintf("sandbox: refused a connection to %s: the machine's loopback is outside the sandbox "+
				"(allowing its host in [sandbox] allow_domains reaches it through the proxy); %s", target, retryHint))
		}
		if patterns().noNetwork.MatchString(output) {
			add("sandbox: the command has no network: only allowed hosts are reached, through the proxy in " +
				"HTTPS_PROXY and HTTP_PROXY; " + retryHint)
		}
	}
	return notes
}

// writeNotes are one line for the refused writes to protected paths and
// one for those outside the writable places, each naming up to three.
func writeNotes(pol Policy, paths []string) []string {
	var protected, outside []string
	for _, path := range paths {
		switch {
		case pol.MayWrite(path):
		case pol.Mode == WorkspaceWrite && pol.under(path):
			protected = append(protected, path)
		default:
			outside = append(outside, path)
		}
	}
	var notes []string
	if len(protected) > 0 {
		notes = append(notes, fmt.Sprintf("sandbox: refused a write to %s: the project's .git/config, .git/hooks/ and "+
			".clawdcode/ (and clawdcode's own storage) are read-only in the sandbox; %s", pathList(pol.Root, protected), retryHint))
	}
	if len(outside) > 0 {
		where := "outside the project, the temporary directory and [sandbox] writable"
		if pol.Mode == ReadOnly {
			where = "outside the temporary directory (commands run read-only)"
		}
		notes = append(notes, fmt.Sprintf("sandbox: refused a write to %s: %s; %s", pathList(pol.Root, outside), where, retryHint))
	}
	return notes
}

// pathList names up to three paths (relative to root inside it).
func pathList(root string, paths []string) string {
	shown := make([]string, 0, 3)
	for _, p := range paths[:min(len(paths), 3)] {
		if rel, err := filepath.Rel(root, p); err == nil && within(root, p) {
			p = filepath.ToSlash(rel)
		}
		shown = append(shown, p)
	}
	s := strings.Join(shown, ", ")
	if len(paths) > 3 {
		s += fmt.Sprintf(" (and %d more)", len(paths)-3)
	}
	return s
}

// patterns are the expressions notes read output with, compiled on the
// first note asked for (not at every start of clawdcode).
var patterns = sync.OnceValue(func() *notePatterns {
	return &notePatterns{
		deniedLine: regexp.MustCompile(`(?i)permission denied|read-only file system|operation not permitted|device or resource busy|EACCES|EROFS|EPERM|EBUSY`),
		quoted:     regexp.MustCompile("['\"‘`]([^'\"’`\n]+)['\"’`]"),
		noNetwork: regexp.MustCompile(`(?i)network is unreachable|could not resolve host|temporary failure in name resolution|` +
			`name or service not known|no address associated with hostname|dial tcp: lookup .*: no such host|getaddrinfo (enotfound|eai_again)`),
		loopbackTarget: regexp.MustCompile(`(?i)(127\.0\.0\.1|localhost|\[::1\])(?::| port )(\d{1,5})`),
		refusedConn:    regexp.MustCompile(`(?i)connection refused|couldn't connect|failed to connect|ECONNREFUSED`),
	}
})

type notePatterns struct {
	// deniedLine is a line of output that reports a refused file
	// operation; quoted are the paths programs quote in such a line.
	deniedLine, quoted *regexp.Regexp
	// noNetwork is what programs say when they find no network at all.
	noNetwork *regexp.Regexp
	// loopbackTarget finds a loopback address and port in a refused
	// connection's message ("127.0.0.1:8080", "localhost port 8080").
	loopbackTarget, refusedConn *regexp.Regexp
}

// deniedPaths are the paths named in lines that report a refused file
// operation, made absolute against root.
func deniedPaths(output, root string) []string {
	var out []string
	for line := range strings.Lines(output) {
		if !patterns().deniedLine.MatchString(line) {
			continue
		}
		var cands []string
		for _, m := range patterns().quoted.FindAllStringSubmatch(line, -1) {
			if filepath.IsAbs(m[1]) {
				cands = append(cands, m[1])
			} else {
				cands = append(cands, "./"+m[1])
			} // quoted: a path, even a bare name
		}
		// "prog: PATH: Permission denied", "could not lock config file PATH: …"
		// The first part is the program's name when a message follows.
		parts := strings.Split(strings.TrimSpace(line), ": ")
		if len(parts) >= 3 {
			parts = parts[1:]
		}
		for _, part := range parts[:max(len(parts)-1, 0)] {
			fields := strings.Fields(part)
			if len(fields) > 0 {
				cands = append(cands, fields[len(fields)-1])
			}
		}
		for _, c := range cands {
			c = strings.Trim(c, "'\"‘’`")
			if !looksLikePath(c) {
				continue
			}
			if !filepath.IsAbs(c) {
				c = filepath.Join(root, c)
			}
			c = filepath.Clean(c)
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

func looksLikePath(s string) bool {
	return strings.ContainsRune(s, '/') || strings.HasPrefix(s, ".")
}

// loopbackRefusals are the loopback addresses the output says a
// connection to was refused, where the machine's own loopback has a
// listener on that port: there is something there, outside the sandbox.
func loopbackRefusals(output string) []string {
	var out []string
	for line := range strings.Lines(output) {
		if !patterns().refusedConn.MatchString(line) {
			continue
		}
		for _, m := range patterns().loopbackTarget.FindAllStringSubmatch(line, -1) {
			port, _ := strconv.Atoi(m[2])
			host := strings.Trim(m[1], "[]")
			target := net.JoinHostPort(host, m[2])
			if port > 0 && hostListening(port) && !slices.Contains(out, target) {
				out = append(out, target)
			}
		}
	}
	return out
}

// hostListening reports whether something listens on the machine's
// loopback at port (clawdcode runs outside the sandbox).
func hostListening(port int) bool {
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
