// Package storage keeps clawdcode's sessions: the PersistentStore (one
// append-only JSONL file per session under
// $CLAWDCODE_HOME/projects/<escaped project path>/, see CONTRACT.md
// section 4), the MemoryStore (the live context held in memory, with a
// byte bound) and the CacheStore (an LRU with TTL for recomputable values).
//
// # Layout
//
// A project's directory name is its symlink-resolved absolute path with
// every character outside [A-Za-z0-9] replaced by '-'. The directory holds
// a .project marker with the real path; when the plain name already
// belongs to another path, or the path is too long for a file name, a hash
// of the real path is appended, so two projects never share a directory.
// Beside the <sessionId>.jsonl files, a project directory holds the
// .project marker, index.json (the listing cache) and index.lock.
// Directories are created 0700 and files 0600, whatever the umask. Nothing
// is written outside CLAWDCODE_HOME, and Store.Project writes nothing at
// all: the first Create makes the directory. A Project checks its
// directory and marker on its first Create only; a later Create that
// finds the directory gone claims it again.
//
// # Durability
//
//   - Append: when it returns, the record is one complete line in the
//     file, written by a single write(2) on an O_APPEND descriptor. It is
//     in the OS page cache: it survives a crash or kill of clawdcode, not
//     a power loss or kernel crash.
//   - A record may carry a large text (Record.Large, see LargeText): a
//     string it holds by reference, which Append writes in place while it
//     builds the batch's one buffer, sized once before (so a 100 MB
//     imported tool output is in memory once, as the bytes of the write).
//     It is still one write(2), and the whole buffer passes through the
//     Redactor.
//   - AppendBatch: several records (a compaction's boundary and summary)
//     in ONE write(2), each record's parent the one before it. Nothing
//     else lands between them, but it is no transaction: a short write or
//     a power loss can keep a prefix only, and then it is the last lines
//     that are missing or torn (see After a crash).
//   - Sync: fsyncs the file (and, the first time, its directory). Every
//     record appended before it is on stable storage when it returns.
//   - Close and Flush write the session's entry into the project's
//     index.json (CloseInto leaves it in an IndexBatch, which writes
//     the entries of many sessions of a project at once) atomically (temporary file, fsync, rename, fsync of the
//     directory). A temporary file that a crash left behind is removed by
//     a later index write once it is a minute old. The index is a cache:
//     the JSONL files are the truth, and List rebuilds any entry that is
//     missing, stale or corrupt. So an index that cannot be written fails
//     no operation; the Store reports it once through its warning hook
//     (SetWarn), and List keeps reading the files. Only a
//     title set with SetTitle lives in the index alone; SaveTitle also
//     appends a "title" record (a clawdcode record type the contract lets
//     other readers ignore), from which a rebuild takes the title.
//   - Append-only, precisely: a complete line (one ending in '\n') is never
//     rewritten, moved or removed. The one truncation is of the bytes of a
//     failed write: when Append or AppendBatch gets an error after a short
//     write (a full disk), it truncates the file back to its size before
//     that write, under the session's lock, so the file is as it was and no
//     later load meets the partial line. (If that truncation fails too, the
//     partial line stays, and the next Append closes it with a '\n' as after
//     a crash.) A session this process created and never wrote a byte to is
//     removed by Close, so a failed creation leaves no empty <id>.jsonl.
//
// # Files, not links
//
// Every file this package opens under CLAWDCODE_HOME (session files,
// index.json, index.lock, the .project marker) is opened with OpenRegular:
// without following a symbolic link in its last element (O_NOFOLLOW),
// without blocking on a FIFO, and only if it is a regular file. Anything
// else named like a session is skipped by List with a warning (through
// SetWarn) and refused by Open, LoadLive, ReadAll and Remove with
// ErrNotRegular, so a planted link can never make clawdcode read or append
// to a file outside CLAWDCODE_HOME. TryLockFile and LockFile take the
// flock on that same descriptor. Other packages keeping files under
// CLAWDCODE_HOME use the same helpers.
//
// # After a crash
//
// A reader may find the last line torn (a write cut short by a power loss).
// Loading skips it with a warning and keeps everything before it; any line
// that does not parse is skipped the same way, with a warning naming the
// file and line (or byte offset when decoding started mid-file). The next
// Append on a file that ends inside a line first writes a '\n', so the torn
// bytes stay one bad line and never glue onto a good record; parentUuid
// continues from the last record that parses. A session file left without
// a single message (a crash right after Create) is not listed, so -c never
// continues it.
//
// A writer that must not leave that bad line unacknowledged (an import,
// whose batches a kill can cut in the middle of a write) calls
// MendTornTail first: a repair record names the torn line, as `sessions
// check --repair` would. Between a compaction's boundary and its summary,
// a damaged line or a repair record parts nothing: readers pass over them.
//
// A compact_boundary that is not followed by its summary record (a crash
// between the two appends, or a torn batch) belongs to a compaction that
// never finished: LoadLive ignores it, with a warning, as if it were not
// in the file — the live context starts from the last complete boundary
// before it, or is the whole file — so the history it would have cut is
// not lost without a summary in its place.
//
// # Concurrency
//
// One process writes a session at a time. Create and Open take an
// exclusive, non-blocking OS lock (flock) on the session file and hold it
// until Close; a second writer — another process, or a second Open in the
// same one — gets ErrSessionBusy naming the session. We chose an error
// over forking the session: the user learns that the session is in use
// and can resume it once the other process is done, and no second history
// appears behind their back. The kernel releases the lock when the holder
// dies, so a crash never leaves a session locked. Remove refuses a locked
// session.
//
// Readers take no lock: LoadLive and ReadAll may run while another process
// appends, and then may see the last line incomplete (reported as torn).
// Store and Project are safe for concurrent use; so are a Session's
// methods. Index updates from several processes are serialised by a lock
// file next to the index. CacheStore is safe for concurrent use;
// MemoryStore is not (its owner serialises access).
//
// # Listing cost
//
// Append writes into every record the session's Listing as of that record
// (messages, tokens, a title record's title), right after the common
// fields. An index entry that is missing or stale is rebuilt from the
// file's head (creation time, first user message) and the first 16 KiB of
// its last complete line, whatever the file's size; only a file whose last
// line carries no Listing (older, or another program's) is read whole, and
// so is one whose last line is not in clawdcode's own spelling (its
// "listing" could be any field's: see canonical.go), which the line's own
// bytes tell. Both ends are read once each, 32 KiB at a time (a small
// file whole in one read: view.go), and the files are stat'ed and opened
// relative to the open project directory, so rebuilding index.json costs
// those reads and nothing per line. A cold Open reads the last line's
// first bytes for its uuid the same way (the whole line when it is in
// another program's spelling). Infos gives what List says of a few named
// sessions, stat'ing only their files.
//
// # Change stamp
//
// A project directory's modification time is its change stamp (stamp.go):
// the kernel moves it when a session file is created, removed or renamed,
// and Append moves it after every write, so a reader that noted it, read
// the sessions, and finds it unchanged knows clawdcode changed none of
// them since (the search index relies on it). A program writing a session
// file in place leaves no stamp.
//
// # Usage cost
//
// Each index entry also carries the session's usage summary (usage.go):
// its model calls' tokens by hour, model and kind, over a byte prefix of
// the file. Append keeps it in step while it covers the whole file;
// Project.Usage reads it from index.json and counts only the bytes a
// summary has not (another program's appends, a lost index), then writes
// the caught-up summaries back. So `clawdcode usage` over a store that
// clawdcode wrote reads index.json and no session file.
//
// # Resume cost
//
// LoadLive finds the last compact_boundary by reading the file backwards
// from the end in 64 KiB chunks, looking for every JSON spelling of
// compact_boundary (the word, or \u00XX escapes of its letters: a line
// without one cannot hold it, whoever wrote it; a match is decoded to
// confirm, see canonical.go).
// The boundary's retainedOffset/retainedUuid point at the first retained
// record; LoadLive checks that the line there carries that uuid and
// decodes forward from it to the end. Nothing before the retained record
// is read or decoded, so the cost follows the live context, not the file.
// A pointer that does not check out falls back to a full scan, with a
// warning.
//
// # Other programs' files
//
// Any valid JSON object on a line is a record. The byte shortcuts above
// (and those of search and Recall) judge a line only when its head is byte
// for byte the store's own encoding (ParseHead, InOwnEncoding); any other
// line is decoded before it is judged, so a file written by another
// program costs more to read but is never misread.
//
// # Which sessions
//
// Store.Projects and Project.SessionFiles (owner.go) are the one place
// that decides which projects the store holds and which sessions a project
// has; everything that lists, resumes, searches or recalls asks them. A
// project directory without its .project marker belongs to the path its
// sessions record as their cwd, when that path's Project would use it.
//
// # Check and repair
//
// CheckSession reads a session whole and reports torn, damaged and
// duplicate lines, uuid clashes, records whose parent is missing and
// boundaries without a summary. Project.Repair mends them without breaking
// the append-only promise: under the session's lock it appends one
// session_repair record naming the damaged lines by offset and length and
// re-linking orphaned records; the readers pass over the lines it names
// (repair.go). IndexDrift and RebuildIndex do the same for index.json.
package storage
