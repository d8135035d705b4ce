package repl

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/shell"

	"github.com/clawdcode/clawdcode/internal/chat"
)

// droppedImage reports whether a paste is one image file dropped into the
// terminal: exactly one word, as terminals write a dropped file (quoted,
// or with backslash-escaped spaces, or a file:// URL), naming an existing
// image file (by absolute path, as terminals drop it). It returns the entry text that attaches it: @path, spaces
// escaped as the @path syntax wants them.
func droppedImage(text string) (string, bool) {
	text = strings.TrimSpace(text)
	if text == "" || strings.ContainsAny(text, "\n\r") {
		return "", false
	}
	// A shell word, parsed as one: no expansion ($ stays empty, no
	// command runs).
	words, err := shell.Fields(text, func(string) string { return "" })
	if err != nil || len(words) != 1 {
		return "", false
	}
	path := words[0]
	if u, err := url.Parse(path); err == nil && u.Scheme == "file" {
		path = u.Path
	}
	if !filepath.IsAbs(path) || !isImageFile(path) {
		return "", false
	}
	return "@" + strings.ReplaceAll(path, " ", `\ `) + " ", true
}

// isImageFile reports whether path is a regular file whose content is an
// image clawdcode sends.
func isImageFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	head := make([]byte, 512)
	n, _ := f.Read(head)
	_, ok := chat.ImageType(head[:n])
	return ok
}
