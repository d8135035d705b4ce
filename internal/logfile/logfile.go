// Package logfile is clawdcode's diagnostic log: log/slog records, one JSON
// object per line, appended to $CLAWDCODE_HOME/logs/clawdcode.log. The
// terminal belongs to the user, so nothing here ever writes to it.
//
// What is logged is decided by the callers; the rule they keep is: sizes,
// timings, statuses, counts and names — never a request or reply body,
// never a key. The level is Info, or Debug with CLAWDCODE_LOG=debug;
// CLAWDCODE_LOG=off logs nothing.
//
// The file is bounded: when it has grown past MaxBytes at open, it becomes
// clawdcode.log.1 (replacing the previous one) and a new file starts, so
// the two never hold more than about twice MaxBytes. Processes append
// concurrently, each record one write on an O_APPEND descriptor, so lines
// never interleave; the rename is serialised by a lock file.
//
// A log that cannot be opened is no failure: OpenRedacted then returns a logger
// that discards, and the reason.
package logfile

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// MaxBytes is the size past which the log is rotated at the next open.
const MaxBytes = 4 << 20

// Name is the log file's name under $CLAWDCODE_HOME/logs.
const Name = "clawdcode.log"

// Discard is a logger that logs nothing.
func Discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// Level reads CLAWDCODE_LOG: "debug", "info" (the default), "warn",
// "error", or "off"; ok is false for "off".
func Level(v string) (level slog.Level, ok bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "off", "none", "0", "false":
		return 0, false
	case "debug":
		return slog.LevelDebug, true
	case "warn", "warning":
		return slog.LevelWarn, true
	case "error":
		return slog.LevelError, true
	}
	return slog.LevelInfo, true
}

// OpenRedacted opens (creating, rotating as needed) the log under home and
// returns a logger writing to it and a function closing it. setting is
// CLAWDCODE_LOG. On any failure the logger discards. Every record passes
// through redact before it is written (nil = as it is): what callers log
// holds no secret by rule, and this makes sure of it (secrets.Redactor).
func OpenRedacted(home, setting string, redact func([]byte) []byte) (*slog.Logger, func() error, error) {
	level, on := Level(setting)
	if !on {
		return Discard(), func() error { return nil }, nil
	}
	dir := filepath.Join(home, "logs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Discard(), func() error { return nil }, fmt.Errorf("log directory: %w", err)
	}
	path := filepath.Join(dir, Name)
	rotate(dir, path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return Discard(), func() error { return nil }, fmt.Errorf("open log: %w", err)
	}
	// slog's handler formats a whole record and hands it over in one
	// Write, so each record is one write(2) on the O_APPEND descriptor.
	var w io.Writer = f
	if redact != nil {
		w = redactingWriter{w: f, redact: redact}
	}
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})
	return slog.New(h).With("pid", os.Getpid()), f.Close, nil
}

// rotate moves a log past MaxBytes aside, under a lock so that two
// processes starting together rotate it once.
func rotate(dir, path string) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Size() < MaxBytes {
		return
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return
	}
	defer lock.Close() // releases the lock
	if ok, err := storage.TryLockFile(lock); !ok || err != nil {
		return // another process is rotating it
	}
	if fi, err := os.Lstat(path); err == nil && fi.Size() >= MaxBytes {
		_ = os.Rename(path, path+".1")
	}
}

// redactingWriter redacts each record (one Write) before writing it whole.
type redactingWriter struct {
	w      io.Writer
	redact func([]byte) []byte
}

func (r redactingWriter) Write(p []byte) (int, error) {
	if _, err := r.w.Write(r.redact(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
