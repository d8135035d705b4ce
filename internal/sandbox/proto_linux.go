package sandbox

import (
	"encoding/json"
	"fmt"
	"io"

	"golang.org/x/sys/unix"
)

// The parent (clawdcode) and its sandbox host talk over a SOCK_SEQPACKET
// socket pair, the host's end its descriptor 3: one JSON message per
// packet, descriptors beside it (SCM_RIGHTS). The parent's end closing —
// clawdcode exited, however — is the host's signal to end everything it
// started.
//
//	parent → host: setup (first), then start
//	host → parent: ready (or fatal), then started and exited per command
type message struct {
	Op string `json:"op"`
	ID int    `json:"id,omitempty"`

	// setup
	Setup *setup `json:"setup,omitempty"`

	// start: a command (Argv[0] absolute), its environment and directory;
	// the descriptor beside it is its stdout and stderr.
	Argv []string `json:"argv,omitempty"`
	Env  []string `json:"env,omitempty"`
	Dir  string   `json:"dir,omitempty"`

	// started: the command's pid as it sees it (a pidfd beside it);
	// exited: its wait status.
	Pid    int `json:"pid,omitempty"`
	Status int `json:"status,omitempty"`

	// ready: what is in force (a listener beside it when Port is set);
	// fatal, or a start that failed: Error.
	Ready *Support `json:"ready,omitempty"`
	Port  int      `json:"port,omitempty"`
	Error string   `json:"error,omitempty"`
}

// setup is what the host is to build before it takes commands.
type setup struct {
	Policy Policy `json:"policy"`
	// Namespaces the host was cloned into.
	UserNS, MountNS, PidNS, NetNS bool
	// MapUID and MapGID, when UserNS is set and they are not -1: the
	// host maps them to themselves (a user without privilege can map
	// only their own ids, and only from inside).
	MapUID, MapGID int
}

// maxPacket bounds one message (a command's environment is the largest).
const maxPacket = 1 << 20

func send(fd int, m message, fds ...int) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	if err := unix.Sendmsg(fd, b, oob, nil, 0); err != nil {
		return fmt.Errorf("send %s: %w", m.Op, err)
	}
	return nil
}

// recv reads one message and the descriptors that came with it; io.EOF
// once the other end is closed.
func recv(fd int, buf, oob []byte) (message, []int, error) {
	for {
		n, oobn, _, _, err := unix.Recvmsg(fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return message{}, nil, err
		}
		if n == 0 && oobn == 0 {
			return message{}, nil, io.EOF
		}
		var fds []int
		if oobn > 0 {
			scms, err := unix.ParseSocketControlMessage(oob[:oobn])
			if err == nil {
				for _, scm := range scms {
					got, err := unix.ParseUnixRights(&scm)
					if err == nil {
						fds = append(fds, got...)
					}
				}
			}
		}
		var m message
		if err := json.Unmarshal(buf[:n], &m); err != nil {
			closeAll(fds)
			return message{}, nil, fmt.Errorf("bad message from the sandbox: %w", err)
		}
		return m, fds, nil
	}
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}
