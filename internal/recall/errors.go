package recall

import "errors"

var (
	// ErrEmptyQuery: the query holds no word to search for.
	ErrEmptyQuery = errors.New("the query has no words")
	// ErrRefNotFound: no stored record has that uuid (or begins with it).
	ErrRefNotFound = errors.New("no record with that ref")
	// ErrAmbiguousRef: a ref prefix names more than one record.
	ErrAmbiguousRef = errors.New("the ref names more than one record")
)

// ErrPastEnd: a page was asked for from beyond the end of a record's text.
var ErrPastEnd = errors.New("the offset is past the end of the record")
