package storage

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// serversFile holds what servers said about their models' windows, keyed
// by base URL and model, so that a server is asked once, not every run.
const serversFile = "servers.json"

// How long an answer is trusted: a server's loaded window changes when
// its operator reloads the model, rarely; a server that said nothing is
// asked again sooner, in case it was starting up.
const (
	ServerWindowTTL        = 24 * time.Hour
	ServerWindowUnknownTTL = time.Hour
)

// ServerWindow is one cached answer: Tokens is 0 when the server did not
// say.
type ServerWindow struct {
	Tokens  int       `json:"tokens"`
	Source  string    `json:"source,omitempty"`
	Checked time.Time `json:"checked"`
}

func serverKey(baseURL, model string) string { return baseURL + "\x00" + model }

// ServerWindow returns the cached answer for baseURL and model when one
// is there and has not expired at now. A missing, unreadable or corrupt
// cache is a miss: it is derived data, asked again.
func (s *Store) ServerWindow(baseURL, model string, now time.Time) (ServerWindow, bool) {
	m := s.readServers()
	w, ok := m[serverKey(baseURL, model)]
	if !ok {
		return ServerWindow{}, false
	}
	ttl := ServerWindowTTL
	if w.Tokens <= 0 {
		ttl = ServerWindowUnknownTTL
	}
	if now.Before(w.Checked) || now.Sub(w.Checked) > ttl {
		return ServerWindow{}, false
	}
	return w, true
}

// SetServerWindow records an answer (atomically; the last writer wins,
// which is harmless for a cache). It fails only when CLAWDCODE_HOME cannot
// be written; callers treat that as a warning.
func (s *Store) SetServerWindow(baseURL, model string, w ServerWindow) error {
	if err := os.MkdirAll(s.home, dirPerm); err != nil {
		return err
	}
	m := s.readServers()
	if m == nil {
		m = map[string]ServerWindow{}
	}
	m[serverKey(baseURL, model)] = w
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return writeFileAtomic(s.home, serversFile, data)
}

// ForgetServerWindow removes the answer about baseURL and model, so that
// the server is asked again; a missing one is no error.
func (s *Store) ForgetServerWindow(baseURL, model string) error {
	m := s.readServers()
	if _, ok := m[serverKey(baseURL, model)]; !ok {
		return nil
	}
	delete(m, serverKey(baseURL, model))
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return writeFileAtomic(s.home, serversFile, data)
}

func (s *Store) readServers() map[string]ServerWindow {
	data, err := os.ReadFile(filepath.Join(s.home, serversFile))
	if err != nil {
		return nil
	}
	var m map[string]ServerWindow
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return m
}
