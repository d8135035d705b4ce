// Package sessionsync keeps sessions on every machine through an object
// store (CONTRACT.md section 15, docs/sync.md): `clawdcode sync` pushes
// the records the store lacks and pulls what other machines pushed, and
// with [sync] auto each turn's end pushes its session in the background
// (Auto). The name avoids the standard library's sync.
//
// # Layout
//
// Under the store's prefix:
//
//	clawdcode-sync.json                 the manifest: layout format, and whether
//	                                    and how objects are encrypted
//	heads/<name>                        one small object per session
//	segments/<name>/<start>-<end>-<tag> the session file's bytes [start, end)
//
// A session's file is the same bytes on every machine that has it, so it
// travels as byte ranges: segments, immutable, each whole lines of the
// file under the SHA-256 of its bytes, named by its range and that hash
// and written only if no object has the name (If-None-Match: *) — the
// same bytes always get the same name, and two machines can never
// overwrite each other's. The head lists the segments in order, from 0 to
// the session's size, with the session's id, project path, title and
// counts; it is replaced only if it is still the object that was read
// (If-Match on its ETag), so of two machines pushing at once one wins and
// the other reads the head again. A push uploads its segments first and
// the head last: whatever moment a kill or a network failure stops it
// at, the store holds a session's old bytes or its new ones, never a
// mixture, and the next push completes it. When a push carries a
// compaction's boundary, the segments written since the last merge that
// lie before the boundary are merged into one (at most 64 MiB each), so a
// session is a few objects per compaction rather than one per turn; the
// replaced segments, and any a cut push left unnamed, are removed an hour
// later (a pull may still be reading them from an older head).
//
// Only session files are synced: index.json, locks, the search index and
// everything else under CLAWDCODE_HOME are derived or this machine's own.
// A pull appends what arrives through storage (Session.AppendReplica), so
// the file stays append-only, index.json follows it, and search reads the
// new bytes at its next query. A pulled session lands in the project of
// the path it was recorded in (storage.Store.ProjectAt), where -c and -r
// find it.
//
// # What this machine remembers
//
// $CLAWDCODE_HOME/sync/<store>/ holds, per session, the length of the
// local file the store is known to hold — a hint, never trusted past what
// the head's hashes confirm: every push and pull compares the local bytes
// after it with the head's segments (by hash, fetching only a segment the
// file ends inside), so a state lost, stale or cut off by a kill costs a
// re-check, not a record. It also holds the lock that makes one push or
// pull of a session run at a time across processes, and the sessions a
// turn's push left pending.
//
// # Both sides changed
//
// When two machines appended to a session since they last synced, the
// first to push keeps the session's line; the later one, at its next pull,
// writes its own records into a new session — a fork titled as such,
// starting with a fork record, then its own records, then the live
// context it had, so that -r of the fork continues exactly there — and
// then takes the store's line as the session (its file rewritten beside
// itself and renamed over it, the one file sync ever replaces, after the
// fork is on disk). Every record of both ends up on both machines, in the
// session or its fork. The fork's id is derived from where the lines part
// and this machine's bytes, so a pull killed half way makes it once.
//
// # Encryption
//
// With a passphrase (CLAWDCODE_SYNC_KEY), the manifest holds an Argon2id
// salt and a key check; heads and segments are sealed with
// XChaCha20-Poly1305 under a key derived from it (the object's name is
// authenticated with it, so an object moved under another name does not
// open), and names are keyed hashes: no object, name or body, holds a word
// of a session, its id, title or project path. The sizes of segments are
// visible. A store in clear is never pushed to with a passphrase set, and
// an encrypted one is refused without one, before anything is read.
//
// # Trust
//
// Whatever a store holds, a pull writes nothing that does not check out:
// a head must name its own session, a clean absolute project path and
// segments that follow on from 0 to its size, each named by its hash; a
// segment's bytes must be that hash (and open under the key), or nothing
// of them is written. A teammate's store (--from) is only read, and the
// sessions pulled from it are left out of pushes to the user's own store.
//
// A Syncer and an Auto are safe for concurrent use.
package sessionsync
