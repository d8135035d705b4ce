package agent

import (
	"errors"

	"github.com/clawdcode/clawdcode/internal/tools"
)

// Shells is the engine's part over the commands the model started in the
// background (Bash with run_in_background): /bashes lists them; they end
// with the run (the engine's Close stops them, whole process groups).
type Shells struct{ e *Engine }

// List describes the background commands of this run, for /bashes.
func (s *Shells) List() []tools.ShellInfo {
	if s.e.env == nil {
		return nil
	}
	return s.e.env.Shells()
}

// shellTail is how much of a background command's output Output shows.
const shellTail = 8 << 10

// Output is the end of what a background command printed, for /bashes
// (the model's BashOutput position is not moved).
func (s *Shells) Output(id string) (tools.ShellInfo, string, error) {
	if s.e.env == nil {
		return tools.ShellInfo{}, "", errNoShells
	}
	return s.e.env.ShellOutput(id, shellTail)
}

// Stop ends a background command and its process group (/bashes).
func (s *Shells) Stop(id string) (tools.ShellInfo, error) {
	if s.e.env == nil {
		return tools.ShellInfo{}, errNoShells
	}
	return s.e.env.StopShell(id)
}

// Running counts the background commands still running (the status line).
func (s *Shells) Running() int {
	n := 0
	for _, sh := range s.List() {
		if sh.Running {
			n++
		}
	}
	return n
}

var errNoShells = errors.New("no background commands in this run")

// stop kills every background command (their process groups).
func (s *Shells) stop() {
	if s.e.env != nil {
		s.e.env.StopBackground()
	}
}
