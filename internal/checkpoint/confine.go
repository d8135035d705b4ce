package checkpoint

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// stateNone is the State of a file clawdcode removed.
const stateNone = "none"

// confined is path relative to the project root, or an error naming the
// directory on its way that is now a symlink leading out of the project.
// The operations after it go through an os.Root, which refuses such a
// path whatever happens in between; this check is there to say which.
func (s *Store) confined(path string) (string, error) {
	rel, err := filepath.Rel(s.root, path)
	if err != nil || !s.inProject(path) || rel == "." {
		return "", fmt.Errorf("%s is not inside the project", path)
	}
	if filepath.Dir(rel) == "." {
		return rel, nil
	}
	parts := strings.Split(filepath.Dir(rel), string(filepath.Separator))
	for i := range parts {
		dir := filepath.Join(append([]string{s.root}, parts[:i+1]...)...)
		info, err := os.Lstat(dir)
		if err != nil {
			break // missing: the restore creates it, inside the project
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if target, err := filepath.EvalSymlinks(dir); err != nil || !s.inProject(target) {
			return "", fmt.Errorf("%s is now a symlink out of the project; nothing written through it", dir)
		}
	}
	return rel, nil
}

// writeIn replaces rel under root with data atomically (a temporary file
// beside it, renamed into place), creating its directories.
func writeIn(root *os.Root, rel string, data []byte, mode fs.FileMode) (err error) {
	if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".clawdcode-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			_ = root.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return root.Rename(tmp, rel)
}
