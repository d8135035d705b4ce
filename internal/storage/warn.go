package storage

import "fmt"

// SetWarn sets where the store reports what goes wrong without failing an
// operation. Today that is an index.json that cannot be written: the index
// is only a cache of the session files (List rebuilds it from them), so
// listing, creating, closing and removing sessions all succeed without it,
// and the problem is reported once per Store rather than once per write.
// Without a hook such problems are not reported. Call it before the store
// is used.
func (s *Store) SetWarn(fn func(msg string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.warn = fn
}

// SetIndexWarn routes the report of an index.json that cannot be written
// to fn instead of the warning hook (still once per Store), so that a
// front end can say it after the error that matters: on a full disk the
// append that failed is the news, the index only a consequence.
func (s *Store) SetIndexWarn(fn func(err error)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.indexWarn = fn
}

// IndexWarning words the report of an index that cannot be written.
func IndexWarning(err error) string {
	// The OS error names the index (or its temporary file) with its path.
	return "the session index cannot be written, so sessions are listed from their files: " + err.Error()
}

// indexUnwritable reports, the first time only, that the index of dir
// could not be written.
func (s *Store) indexUnwritable(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.indexWarned {
		return
	}
	if s.indexWarn != nil {
		s.indexWarned = true
		s.indexWarn(err)
		return
	}
	if s.warn == nil {
		return
	}
	s.indexWarned = true
	s.warn(IndexWarning(err))
}

// warnf reports a problem that fails no operation (a file skipped) through
// the warning hook, once per Store: one command lists a project more than
// once (-c finds the latest session, then resolves it), and the same
// skipped file is one thing to say.
func (s *Store) warnf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.mu.Lock()
	warn := s.warn
	said := s.warned[msg]
	if warn != nil && !said {
		if s.warned == nil {
			s.warned = make(map[string]bool)
		}
		s.warned[msg] = true
	}
	s.mu.Unlock()
	if warn != nil && !said {
		warn(msg)
	}
}
