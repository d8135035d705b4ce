package fileanalyzer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/clawdcode/clawdcode/internal/chat"
	"github.com/clawdcode/clawdcode/internal/toolcall"
)

// File is one file chosen for a compaction summary.
type File struct {
	Path      string // relative to the project root when inside it, else absolute
	Content   string // current content on disk, at most MaxLines lines and MaxBytes bytes
	Modified  bool   // written or edited by a tool in the analysed history
	Mentions  int    // tool calls naming it + messages whose text mentions it
	Truncated bool   // Content stops short of the file's end
}

// Options bound the selection. Zero values mean the defaults.
type Options struct {
	MaxFiles int // default 5
	MaxLines int // default 1000
	// MaxBytes caps one file's content, so a 1000-line file of minified
	// code cannot swamp the summary request. Default 100 KiB; whole lines
	// are kept when a line boundary falls under the cap.
	MaxBytes int
	// Cache, when set, keeps the contents read, keyed by path, size and
	// modification time, so the next summary of the process does not read
	// an unchanged file again (*storage.CacheStore satisfies it).
	Cache Cache
}

// Cache is a process-wide cache of recomputable values.
type Cache interface {
	Get(key string) (any, bool)
	Add(key string, v any)
}

const (
	defaultMaxFiles = 5
	defaultMaxLines = 1000
	defaultMaxBytes = 100 << 10
)

func (o Options) withDefaults() Options {
	if o.MaxFiles <= 0 {
		o.MaxFiles = defaultMaxFiles
	}
	if o.MaxLines <= 0 {
		o.MaxLines = defaultMaxLines
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = defaultMaxBytes
	}
	return o
}

// candidate is what the history says about one file, keyed by its
// cleaned absolute path so that "x.go", "./x.go" and "/root/x.go" are one.
type candidate struct {
	abs      string
	modified bool
	mentions int
	lastSeen int  // index of the last message naming it
	byTool   bool // a tool call named it (required outside the root)
}

// Select ranks the files seen in msgs (tool calls' file_path/path arguments
// and paths mentioned in text): modified (Write/Edit) first, then mention
// count, then recency; it returns the top MaxFiles that still exist as
// regular text files, with their current content, in rank order. Relative
// paths are resolved against root. Files that vanished, cannot be read or
// look binary are skipped; the error is only for an unusable root.
func Select(root string, msgs []chat.Message, opt Options) ([]File, error) {
	opt = opt.withDefaults()
	r, err := newResolver(root)
	if err != nil {
		return nil, err
	}
	ranked := rank(r, msgs)

	var out []File
	for _, c := range ranked {
		if len(out) == opt.MaxFiles {
			break
		}
		if !c.byTool && !r.inside(c.abs) {
			continue
		}
		content, truncated, ok := readCached(opt.Cache, c.abs, opt.MaxLines, opt.MaxBytes)
		if !ok {
			continue
		}
		out = append(out, File{
			Path:      r.display(c.abs),
			Content:   content,
			Modified:  c.modified,
			Mentions:  c.mentions,
			Truncated: truncated,
		})
	}
	return out, nil
}

// rank collects every candidate in msgs and sorts them best first.
func rank(r *resolver, msgs []chat.Message) []*candidate {
	byPath := make(map[string]*candidate)
	resolved := make(map[string]string) // mention as written → key; "" if unusable
	note := func(raw string, i int, tool, modified bool) *candidate {
		key, ok := resolved[raw]
		if !ok {
			key = r.key(raw)
			resolved[raw] = key
		}
		if key == "" {
			return nil
		}
		c := byPath[key]
		if c == nil {
			c = &candidate{abs: key}
			byPath[key] = c
		}
		c.lastSeen = i
		c.byTool = c.byTool || tool
		c.modified = c.modified || modified
		if tool {
			c.mentions++
		}
		return c
	}

	var scratch []string
	seen := make(map[*candidate]bool)
	for i, m := range msgs {
		if m.Role == chat.RoleSystem {
			continue // the system prompt is configuration, not history
		}
		scratch = appendMentions(scratch[:0], m.Content)
		for _, tc := range m.ToolCalls {
			c := toolcall.Classify(tc.Name, json.RawMessage(tc.Arguments))
			switch {
			case c.Effect != toolcall.None:
				note(c.Path, i, true, c.Effect == toolcall.Changes)
			case c.Tool == toolcall.Bash:
				scratch = appendMentions(scratch, c.Command)
			}
		}
		// Text counts once per message: a grep listing one file fifty
		// times is one mention, not fifty.
		clear(seen)
		for _, raw := range scratch {
			if c := note(raw, i, false, false); c != nil && !seen[c] {
				seen[c] = true
				c.mentions++
			}
		}
	}

	out := make([]*candidate, 0, len(byPath))
	for _, c := range byPath {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.modified != b.modified:
			return a.modified
		case a.mentions != b.mentions:
			return a.mentions > b.mentions
		case a.lastSeen != b.lastSeen:
			return a.lastSeen > b.lastSeen
		}
		return a.abs < b.abs
	})
	return out
}

// resolver turns paths as written into keys and back into display paths.
type resolver struct {
	root string // absolute, cleaned
	real string // root with symlinks resolved, when that differs
}

func newResolver(root string) (*resolver, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("resolve project root %q: %w", root, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("project root: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("project root %s: %w", abs, ErrRootNotDir)
	}
	r := &resolver{root: abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		r.real = real
	}
	return r, nil
}

// key is the cleaned absolute path for p, relative paths taken from the
// root; a path under the root's symlink-resolved twin is mapped back, so a
// tool that reported /private/tmp/p/x.go and a mention of x.go agree.
// It returns "" for what cannot name a file here.
func (r *resolver) key(p string) string {
	if p == "" || strings.HasPrefix(p, "~") || strings.ContainsRune(p, 0) {
		return ""
	}
	if !filepath.IsAbs(p) {
		return filepath.Join(r.root, p)
	}
	p = filepath.Clean(p)
	if r.real != "" {
		if rel, ok := within(r.real, p); ok {
			return filepath.Join(r.root, rel)
		}
	}
	return p
}

func (r *resolver) inside(abs string) bool {
	_, ok := within(r.root, abs)
	return ok
}

func (r *resolver) display(abs string) string {
	if rel, ok := within(r.root, abs); ok {
		return rel
	}
	return abs
}

// within returns p relative to dir when p is strictly inside dir.
func within(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}
