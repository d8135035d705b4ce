package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A symbol a memory names: a function call in backquotes, `parseConfig()`
// or `config.Resolve()`; the last name is looked for.
var symbolCall = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9_]*\.)*([A-Za-z_][A-Za-z0-9_]*)\(\)$`)

// The bounds of the search for a symbol: past them it is not found, but
// not missing either (the memory stays).
const (
	symbolMaxFiles = 5000
	symbolMaxBytes = 32 << 20
	symbolMaxFile  = 1 << 20
)

var errSearchDone = errors.New("search done")

// checkSymbol says "name() is not in the project" when no file of the
// project (hidden directories, node_modules and vendor aside) has name as
// a whole word; "" when one has it or the search ran out of its bounds.
func checkSymbol(root, span string) string {
	m := symbolCall.FindStringSubmatch(strings.TrimSpace(span))
	if m == nil {
		return ""
	}
	name := []byte(m[1])
	files, read := 0, 0
	found, bounded := false, false
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() || info.Size() > symbolMaxFile {
			return nil
		}
		files, read = files+1, read+int(info.Size())
		if files > symbolMaxFiles || read > symbolMaxBytes {
			bounded = true
			return errSearchDone
		}
		data, err := os.ReadFile(path)
		if err == nil && hasWord(data, name) {
			found = true
			return errSearchDone
		}
		return nil
	})
	if err != nil && !errors.Is(err, errSearchDone) || found || bounded {
		return ""
	}
	return fmt.Sprintf("%s() is not in the project", name)
}

// hasWord reports whether data has word with no identifier character on
// either side.
func hasWord(data, word []byte) bool {
	for off := 0; ; {
		i := bytes.Index(data[off:], word)
		if i < 0 {
			return false
		}
		start, end := off+i, off+i+len(word)
		if (start == 0 || !isIdent(data[start-1])) && (end == len(data) || !isIdent(data[end])) {
			return true
		}
		off = start + 1
	}
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
