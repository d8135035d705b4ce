package fileanalyzer

import "errors"

// ErrRootNotDir is returned by Select when the project root is not a directory.
var ErrRootNotDir = errors.New("not a directory")
