// Package importer brings other coding agents' sessions into clawdcode's
// store (`clawdcode import`, CONTRACT.md section 10): Claude Code
// transcripts (~/.claude/projects/<escaped cwd>/<id>.jsonl) and Codex
// rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl).
//
// Each source file becomes the session of the same id (characters outside
// [A-Za-z0-9-] become '-') in the project at its recorded working
// directory, which need not exist on this machine (storage.ProjectAt). It
// opens with a system record of subtype "import" naming the tool and the
// file. Then:
//
//   - Claude Code writes one line per content block of a reply, the blocks
//     sharing message.id: they are gathered into one assistant record (its
//     text blocks joined; thinking left out) followed by one tool_use per
//     tool_use block. A user line's tool_result blocks become tool_result
//     records (is_error: the text as the error), its text the user record.
//     A compact_boundary becomes a boundary with nothing retained and the
//     isCompactSummary line its summary, so that a resume sends what
//     Claude Code would: the summary and what follows. A second user
//     message under the same parent (a rewind or an edited message) adds
//     a rewind record naming the first, so the abandoned branch is not
//     resumed. Sidechain (sub-agent) lines, progress, file-history
//     snapshots and other system lines are skipped; a "summary" line is
//     the session's title.
//   - Codex: session_meta gives the id and cwd, turn_context the model;
//     user and assistant messages become records (developer messages and
//     the context Codex injects as user messages are Codex's own and are
//     left out), function calls and custom tool calls tool_use records
//     (after an empty assistant record when the reply had no text), their
//     outputs tool_result records. A "compacted" item becomes a boundary
//     and a summary holding the replacement history's user messages (the
//     last of them Codex's summary): after a compaction Codex resumes with
//     exactly those, then what follows.
//
// The Claude Code converter also takes clawdcode's own record types
// (tool_use, tool_result, title, rewind, a boundary's retainedUuid), so
// that `sessions export --format jsonl` of a session imports back to the
// same context.
//
// Record uuids that are UUIDs are kept; others get a UUID derived from
// them. A source's times are kept.
//
// # Importing again, and after a kill
//
// A source file is imported in passes, each over the whole lines of a byte
// range [from, to) fixed when it starts; converting a range is
// deterministic. A Codex pass that starts past 0 is first primed with the
// model, the branch and the open reply the lines before it named, and
// converts as one pass from the start would (for a rollout grown at any
// line, TestCodexImportedInTwoPassesAsInOne). A Claude Code pass is not
// primed: what refers back across its start (a reply's blocks, a rewind,
// a compaction's token count) can come out otherwise than in one pass.
// Every record a pass writes carries its progress mark,
// storage.ImportPos{From, To, N, End}: the N-th record of the pass, End on
// the last. The session file is the truth about an import: the next one
// reads the last whole record's mark from the session's tail. After an
// End it converts what the source gained since To (a last line without
// its '\n' waits for the next import); otherwise the pass was cut short
// (a kill, a crash, a full disk) and is converted again, its first N
// records, already in the file, left out. A last record that lacks only
// its '\n' (a kill between its last byte and its newline) is whole: the
// store keeps it, so its mark counts. So a kill at any moment — the
// session just created and empty, a batch half written, the state not yet
// saved — loses no record and writes none twice, and the session file is
// never rewritten (a torn last batch stays one bad line, which readers
// skip). Known limit: a boundary that retains records (a clawdcode
// export) whose retained record was written before the cut resumes from
// its summary.
//
// $CLAWDCODE_HOME/import/state.json is only a cache: per source file, its
// size and mtime and its session's size when the last import ended, so
// that an unchanged file costs two stats. A file whose entry is missing or
// out of date is checked against its session's marks. The temporary file
// of a save a kill interrupted is removed by the next import. It is written with
// the index entries, every 512 sessions or half as many as were written
// before, whichever is more, and at the end.
//
// One import runs at a time per store: Import takes the flock
// import/import.lock (the kernel drops it when its holder dies) and waits
// for it, saying so through Waiting. Sessions are closed into a
// storage.IndexBatch, so a project's index.json is written once per batch,
// not once per session, and the cost of an import is linear in its files.
//
// Memory does not follow a line's size: a line past 8 MiB (a 100 MB tool
// output, which Claude Code repeats in toolUseResult) is not held. Its
// strings are lexed as they stream by and those over 1 MiB stay in the
// source file, a reference in their place (large.go); encoding/json decodes
// what is left. A tool's output goes to the store as a storage.LargeText,
// transcoded into the record's one write buffer; a message's text, a
// title or a Codex tool's input is read back whole.
//
// A Claude Code line is decoded by storage.DecodeLine, the JSON v2
// decoder (github.com/go-json-experiment/json) set to read a line as
// encoding/json does, which the store reads its own records with too
// (decode.go): it reads the line once, where
// encoding/json scans it to validate it and again to decode it, and each
// content value twice more. Decoding was over half of what a small
// session costs; what remains is mostly the kernel's (creating the
// session file) and the store's encoding of the records.
//
// Many small sessions: a source file of up to 1 MiB is read whole, once,
// into a buffer the next file reuses (source.go), and its last newline,
// head and passes are found there. A session is created (O_EXCL) before
// anything else is done with it, and opened only when that fails because
// it exists: creating a file takes its directory's lock, and on an ext4
// without a journal it holds it while the kernel skips every inode freed
// in the last minute (~0.4 ms a file after thousands were deleted).
// Looking for a session first took the same lock a second time, so the
// workers queued on it instead of one decoding while the other creates.
// The index and state batches are written outside the run's lock, the
// other workers going on meanwhile.
//
// A line that does not parse is skipped with a warning; a file that
// cannot be read is reported and the others are imported.
package importer
