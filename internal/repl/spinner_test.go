package repl

// running reports whether the spinner is shown (or about to be): what the
// tests observe of it.
func (s *spinner) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stop != nil
}
