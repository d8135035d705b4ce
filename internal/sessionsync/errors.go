package sessionsync

import "errors"

var (
	// ErrNotConfigured: there is no [sync] table with a url.
	ErrNotConfigured = errors.New("sync is not configured: add a [sync] table with a url to the user's config.toml (see docs/sync.md)")
	// ErrDamaged: an object's bytes are not the ones its head names; the
	// session is left as it was.
	ErrDamaged = errors.New("the store's copy does not match its hash")
	// ErrReadOnly: a push to a store pulled with --from.
	ErrReadOnly = errors.New("a teammate's store is only pulled from")

	errNeedKey   = errors.New("it is encrypted: set " + KeyEnv + " to the passphrase it was pushed with")
	errNotSealed = errors.New("it is not encrypted, but " + KeyEnv + " is set")
)
