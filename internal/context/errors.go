package contextmgr

import "errors"

var (
	// ErrNothingToCompact is returned by Compact when the live context holds
	// nothing that could be replaced by a summary (no records besides the
	// current summary, or only the turn in progress).
	ErrNothingToCompact = errors.New("nothing to compact")

	// errSummary wraps every reason a summary is rejected; the caller falls
	// back to the deterministic digest on it.
	errSummary = errors.New("summary")
)
