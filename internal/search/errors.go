package search

import "errors"

// ErrEmptyQuery is a query with no word to search for.
var ErrEmptyQuery = errors.New("empty search query")
