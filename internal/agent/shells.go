package agent

import "github.com/clawdcode/clawdcode/internal/tools"

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

// stop kills every background command (their process groups).
func (s *Shells) stop() {
	if s.e.env != nil {
		s.e.env.StopBackground()
	}
}
