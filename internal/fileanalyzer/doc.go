// Package fileanalyzer picks the files a conversation has been working on,
// so a compaction summary can carry their current content.
//
// Select reads the history once: the file_path/path arguments of the Read,
// Write, Edit, Glob and Grep calls, the command of Bash calls (each call
// read by toolcall.Classify, so "edit" is Edit), and every plausible file
// path (one with an extension) in the text of user, assistant and tool
// messages. Files are ranked modified (Write/Edit) first,
// then by mention count, then by recency, and the top few that still exist
// as regular, non-binary files are read from disk as they are now.
//
// Guarantees:
//   - Only regular files are opened; directories, symlinks, devices and
//     FIFOs are skipped, as are files that look binary (a NUL byte early on).
//   - A file outside the project root is considered only when a tool call
//     named it: a path that merely appears in text (a pasted log, a stack
//     trace) never makes clawdcode read outside the project.
//   - Content is bounded per file by lines and bytes; Truncated says so.
//   - Malformed tool arguments are ignored, never an error.
//
// Select holds no state and is safe to call concurrently.
package fileanalyzer
