package fileanalyzer

// THIS FILE IS THE AGREED API SKETCH. The helper replaces the bodies (and may
// split the file); the signatures are what other packages compile against.

import "github.com/clawdcode/clawdcode/internal/chat"

// File is one file chosen for a compaction summary.
type File struct {
	Path     string // relative to the project root when inside it
	Content  string // current content on disk, at most MaxLines lines
	Modified bool   // written or edited by a tool in the analysed history
	Mentions int
	Truncated bool
}

// Options bound the selection.
type Options struct {
	MaxFiles int // default 5
	MaxLines int // default 1000
}

// Select ranks the files seen in msgs (tool calls' file_path/path arguments
// and paths mentioned in text): modified (Write/Edit) first, then mention
// count, then recency; it returns the top MaxFiles that still exist under
// root (or absolute), with their current content.
func Select(root string, msgs []chat.Message, opt Options) ([]File, error) { panic("unimplemented") }
