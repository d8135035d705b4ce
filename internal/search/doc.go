// Package search is clawdcode's full-text search over the stored
// sessions (CONTRACT.md section 6): `clawdcode search`, `/search`, the
// Recall tool's project and all scopes, and the /resume picker's filter.
//
// # API
//
//	ix := search.New(store, warn)              // store is *storage.Store
//	hits, err := ix.Search(ctx, search.Query{
//		Text:    `compaction "retained offset"`, // all words; a quoted phrase as one
//		Project: project.Root,                   // "" = every project
//		Session: "3f2a",                         // id prefix; "" = every session
//		Limit:   20,                             // 0 = DefaultLimit
//	})
//
//	ids, err := ix.Sessions(ctx, search.Query{Text: "flaky test", Project: root})
//
// Each Hit names the session, its project, the record's uuid, time and
// type, the session's title, a one-line snippet around the match and the
// BM25 score; hits come best first. Find also says whether more records
// match than Limit let through, and how many (Result; MoreLine words it);
// Limit goes up to MaxLimit, 100,000. Sessions gives the matching sessions'
// ids instead, best first, each once (a picker's content filter). Search is safe to call from several
// goroutines and processes. ErrEmptyQuery is a query with no word in it.
//
// # What is searched
//
// The text of user records (compaction summaries included), assistant
// records, tool_use records (the tool's name and the string values of its
// input) and tool_result records (output and error), of every session
// file, history before compactions included. A term is a run of letters
// and digits, lowercased (a Han, kana or Hangul character is a term by
// itself); a query word that splits into several terms (foo.bar) must
// match as a phrase. Ranking is BM25 (k1 1.2, b 0.75).
//
// # The index
//
// The index lives in $CLAWDCODE_HOME/search and is derived from the
// session files, which stay the truth: deleting it loses nothing. It is a
// hand-written inverted index: immutable segment files (documents,
// postings, a block-indexed term dictionary; see segment.go), mapped into
// memory, and the manifest (binary, manifest.go), which records for each
// session file how many bytes of whole lines the segments cover, and for
// each project the change stamp it had when its files were last compared
// with the index.
//
// # Current without a stat per session
//
// A search asks each project whether it changed (storage.Stamp: its
// directory's mtime, which the kernel moves when a session file is
// created, removed or renamed, and the store after every append) and
// stats the session files of only those that did: a warm search does not
// grow with the number of sessions. A session file another program wrote
// in place is the one change this does not see: it is found once the
// project changes otherwise, or at once when a hit is read from a line
// that is no longer where the index says (the file is then indexed anew,
// and the search asked again). freshness.go says why a stamp and not a
// journal of appends.
//
// # Building it
//
// The first search over a store builds the index from every byte, in
// bounded memory whatever the store's size and the machine's cores (see
// build.go): the builders of all workers share 256 MiB, hold no pointer
// (the collector has nothing to walk), and take a large file in 32 MiB
// pieces, so one 1 GB session is indexed by every core; the heap is held
// under a limit while it runs. OnProgress reports files and bytes read.
//
// # Damage
//
// Nothing the index reads is trusted before it is verified. The manifest
// ends with a CRC-32C of itself and must name, for each file, the session
// file it is under its own id, with no more bytes indexed than the file
// has. A segment's footer holds a CRC-32C of its tables, checked when it
// is opened (8 bytes per 32 terms and 4 per 1,024 documents, a small
// fraction of the segment); each block of the term
// dictionary, each run of 1,024 documents and each term's postings has
// its own, checked the first time a search reads it, so a search verifies
// what it reads and no more (BENCHMARKS.md: warm searches over 1 GiB stay
// in milliseconds). Every offset, document number and file number is
// bounds-checked, and a hit whose line is not where the index says is
// damage too. Damage found at any point is reported once through warn;
// the index is then rebuilt from the session files and the search asked
// again, so the answer is always the one a fresh index gives: never a
// panic, never a hit lost or invented. Damage in bytes no search has read
// yet is found by the first search that reads them. An index of an older
// format (manifestVersion, segVersion) is rebuilt without a warning.
//
// # Records of any size
//
// A line longer than 1 MB is read into one buffer of its size (reused
// from indexing to showing the hit) and decoded over itself, the phrase
// check walks its terms keeping only a phrase's worth, and the snippet is
// cut from the bytes around the match: a 100 MB record costs about
// 100 MB to index and to show, not copies of it (BENCHMARKS.md).
// WithRecordText gives the Recall tool the same decoding, and
// RecordTextPage a window of it: the text strings are found in the line
// and only the window is decoded, so a page of a 100 MB record needs no
// buffer of its size. A search first brings the
// index up to date by reading only the bytes appended since (a file that
// shrank or was replaced is indexed anew; a last line without its '\n' is
// left for later), writes them as a new segment, merges segments so that
// their number stays logarithmic, and commits by renaming a new manifest
// over the old one. A search therefore sees every record appended before
// it started. Nothing is indexed on a turn's path: writers of sessions
// never touch the index.
//
// # Concurrency
//
// Every Search and Update holds an exclusive flock on
// $CLAWDCODE_HOME/search/lock for its whole run, so two processes that
// search at once take turns and never see each other's half-written
// files; session writers take no part in it (they append, and the index
// only ever reads whole lines).
//
// # Why hand-written
//
// Measured on this project's 2-core machine (BENCHMARKS.md): SQLite FTS5
// through modernc.org/sqlite indexed plain text at about 20 MB/s and bleve
// at about 3.5 MB/s, both under the 50 MB/s that the first search over
// 1 GB of sessions needs, and they would add 8 and 19 MB to the binary.
// The segments here need only the standard library.
package search
