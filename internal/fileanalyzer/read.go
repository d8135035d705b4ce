package fileanalyzer

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// sniffLen is how much of a file is checked for NUL bytes, as git does to
// tell binary from text.
const sniffLen = 8000

// cachedText is a file's content as readText returned it.
type cachedText struct {
	content   string
	truncated bool
}

// readCached is readText through cache (nil = none). The key holds the
// file's size and modification time, so a file changed since is read
// again; a file that cannot be read is never cached.
func readCached(cache Cache, path string, maxLines, maxBytes int) (string, bool, bool) {
	if cache == nil {
		return readText(path, maxLines, maxBytes)
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false, false
	}
	key := fmt.Sprintf("file:%s:%d:%d:%d:%d", path, fi.Size(), fi.ModTime().UnixNano(), maxLines, maxBytes)
	if v, ok := cache.Get(key); ok {
		if c, ok := v.(cachedText); ok {
			return c.content, c.truncated, true
		}
	}
	content, truncated, ok := readText(path, maxLines, maxBytes)
	if ok {
		cache.Add(key, cachedText{content, truncated})
	}
	return content, truncated, ok
}

// readText returns at most maxLines lines and maxBytes bytes of the regular
// file at path, and whether that stops short of the end. ok is false when
// the path is not a regular file now (gone, a directory, a symlink, a
// device), cannot be read, or looks binary.
func readText(path string, maxLines, maxBytes int) (content string, truncated, ok bool) {
	// Lstat first so that a symlink or a FIFO is never opened (opening a
	// FIFO blocks); the Stat after opening catches a swap in between.
	before, err := os.Lstat(path)
	if err != nil || !before.Mode().IsRegular() {
		return "", false, false
	}
	f, err := os.Open(path)
	if err != nil {
		return "", false, false
	}
	defer f.Close()
	after, err := f.Stat()
	if err != nil || !os.SameFile(before, after) {
		return "", false, false
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(maxBytes)+1))
	if err != nil {
		return "", false, false
	}
	if bytes.IndexByte(data[:min(len(data), sniffLen)], 0) >= 0 {
		return "", false, false
	}
	if len(data) > maxBytes {
		data, truncated = data[:maxBytes], true
		if nl := bytes.LastIndexByte(data, '\n'); nl >= 0 {
			data = data[:nl+1]
		} else {
			data = data[:completeRunes(data)]
		}
	}
	lines := 0
	for i := 0; i < len(data); {
		nl := bytes.IndexByte(data[i:], '\n')
		if nl < 0 {
			break
		}
		i += nl + 1
		lines++
		if lines == maxLines && i < len(data) {
			data, truncated = data[:i], true
			break
		}
	}
	return string(data), truncated, true
}

// completeRunes is len(b) less a trailing character cut in half by a byte
// limit. Invalid bytes elsewhere (a Latin-1 file) are left alone.
func completeRunes(b []byte) int {
	for back := 1; back <= utf8.UTFMax && back <= len(b); back++ {
		i := len(b) - back
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}
