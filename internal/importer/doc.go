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
// # Importing again
//
// $CLAWDCODE_HOME/import/state.json records, per source file, the bytes
// of whole lines imported and the session they went to. A second import
// reads only what a file gained since (a last line without its '\n' waits
// for the next import) and appends it to the same session; a file that did
// not grow costs a stat. If the state is lost, a session that exists is
// not imported again (so nothing is duplicated). A line that does not
// parse is skipped with a warning; a file that cannot be read is reported
// and the others are imported.
package importer
