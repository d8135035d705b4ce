package config

import (
	"errors"
	"fmt"
)

// ErrInvalid marks a configuration that cannot be used: a malformed file, a
// bad value in a file or in the environment. The CLI makes it a usage error
// (exit 2).
var ErrInvalid = errors.New("invalid configuration")

// ErrCannotSave is SaveRule's refusal to edit a file it could not edit
// without risking the user's content.
var ErrCannotSave = errors.New("cannot add the rule safely")

// FileError is a problem at a place in a configuration file.
type FileError struct {
	Path string
	Line int // 1-based; 0 when the problem has no single line
	Msg  string
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

func (e *FileError) Unwrap() error { return ErrInvalid }

// ValueError is a bad value from the environment or a flag; its message is
// for the user as it is.
type ValueError struct{ Msg string }

func (e *ValueError) Error() string { return e.Msg }
func (e *ValueError) Unwrap() error { return ErrInvalid }

func invalidf(format string, args ...any) error {
	return &ValueError{Msg: fmt.Sprintf(format, args...)}
}
