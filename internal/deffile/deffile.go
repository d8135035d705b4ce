// Package deffile reads the definition files a user or a repository drops
// into a directory for clawdcode to pick up: custom commands
// (.clawdcode/commands/*.md, CONTRACT §9) and subagent types
// (.clawdcode/agents/*.md, §12). Read is the one check they share, and
// SplitFrontMatter the one reader of their front matter (YAML, through a
// YAML parser: frontmatter.go), so that a definition file is read the
// same way everywhere.
//
// A definition file is sent to the model when it is used, so a cloned
// repository must not be able to make clawdcode read anything else of the
// user's: a symbolic link (`review.md -> ~/.aws/credentials`), a device, a
// FIFO or a directory is refused, and so is a name that is not directly
// inside the directory. The file is opened without following a link
// (O_NOFOLLOW) and checked on the open descriptor, so a link swapped in
// after the check is refused too. The directory itself is taken as given
// (a user's $CLAWDCODE_HOME/commands may well be a link to dotfiles).
//
// Read is safe for concurrent use.
package deffile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrNotRegular is wrapped by Read's error for anything but a regular file
// directly inside the directory.
var ErrNotRegular = errors.New("not a regular file inside its directory")

// Read returns the content of the file name directly inside dir, at most
// limit bytes long. The error names what was refused (a symbolic link, a
// directory, a file too large) without the path, for the caller's warning
// to give.
func Read(dir, name string, limit int64) ([]byte, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, filepath.Separator) {
		return nil, fmt.Errorf("%w: the name %q", ErrNotRegular, name)
	}
	path := filepath.Join(dir, name)
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(fi); err != nil {
		return nil, err
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, fmt.Errorf("%w: a symbolic link", ErrNotRegular)
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := regular(fi); err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("larger than %d KiB", limit>>10)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d KiB", limit>>10)
	}
	return data, nil
}

// regular refuses anything but a regular file. A link's target is not
// named: it is the repository's text, and the warning goes to a terminal.
func regular(fi os.FileInfo) error {
	switch mode := fi.Mode(); {
	case mode.IsRegular():
		return nil
	case mode&os.ModeSymlink != 0:
		return fmt.Errorf("%w: a symbolic link", ErrNotRegular)
	case mode.IsDir():
		return fmt.Errorf("%w: a directory", ErrNotRegular)
	default:
		return fmt.Errorf("%w: %v", ErrNotRegular, mode.Type())
	}
}

// Walk calls fn for every "<name>.md" entry directly in each of dirs, in
// name order, the dirs in order, skipping a name (in any case) for which
// fn already returned true: the file of the earlier directory wins. A
// directory that cannot be read is reported to warn, naming what it holds
// (e.g. "custom commands"); a missing one is not. fn reads the file with
// Read, which refuses what is not a regular file.
func Walk(dirs []string, what string, warn func(string), fn func(dir, file, name string) (taken bool)) {
	seen := map[string]bool{}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				warn(fmt.Sprintf("%s in %s: %v", what, dir, err))
			}
			continue
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			name, ok := strings.CutSuffix(e.Name(), ".md")
			key := strings.ToLower(name)
			if !ok || e.IsDir() || seen[key] {
				continue
			}
			if fn(dir, e.Name(), name) {
				seen[key] = true
			}
		}
	}
}

// ErrEmptyBody is ReadDefinition's error for a file with nothing after its
// front matter.
var ErrEmptyBody = errors.New("the file has no text after its front matter")

// ReadDefinition reads the definition file name in dir (Read) and splits
// it: its front matter, which must parse (SplitFrontMatter), and its
// body, trimmed, which must not be empty.
func ReadDefinition(dir, name string, limit int64) (meta FrontMatter, body string, err error) {
	data, err := Read(dir, name, limit)
	if err != nil {
		return FrontMatter{}, "", err
	}
	meta, body, err = SplitFrontMatter(string(data))
	if err != nil {
		return FrontMatter{}, "", err
	}
	body = strings.TrimSpace(body)
	if body == "" {
		return FrontMatter{}, "", ErrEmptyBody
	}
	return meta, body, nil
}
