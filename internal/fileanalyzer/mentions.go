package fileanalyzer

import "strings"

// maxPathLen bounds a mention; longer runs are data, not paths.
const maxPathLen = 1024

// pathBytes marks the bytes that can be part of a path as people write
// them in prose, logs and tool output. '~' is included so that "~/x.go" is
// seen whole (and rejected) instead of as the absolute path "/x.go".
var pathBytes = func() (t [256]bool) {
	for _, b := range []byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-+@~") {
		t[b] = true
	}
	return t
}()

// appendMentions appends the plausible file paths in text to dst, in order,
// with repeats. A path needs an extension, so it hops from dot to dot
// (IndexByte is vectorised) and widens each to its run of path bytes; most
// of a long history is never looked at byte by byte. It is a scanner rather
// than a regular expression because it needs the byte before a run as
// context, which RE2 cannot look at.
func appendMentions(dst []string, text string) []string {
	for i := 0; i < len(text); {
		d := strings.IndexByte(text[i:], '.')
		if d < 0 {
			break
		}
		start, end := i+d, i+d+1
		for start > i && pathBytes[text[start-1]] {
			start--
		}
		for end < len(text) && pathBytes[text[end]] {
			end++
		}
		var before byte
		if start > 0 {
			before = text[start-1]
		}
		if p, ok := plausiblePath(text[start:end], before); ok {
			dst = append(dst, p)
		}
		i = end
	}
	return dst
}

// plausiblePath trims sentence punctuation from a run of path bytes and
// says whether what is left looks like a file path with an extension.
// It errs towards accepting: Select only keeps paths that exist on disk.
func plausiblePath(run string, before byte) (string, bool) {
	for len(run) > 0 && strings.IndexByte(".-+@~", run[len(run)-1]) >= 0 {
		run = run[:len(run)-1]
	}
	switch {
	case len(run) == 0 || len(run) > maxPathLen:
		return "", false
	case strings.HasPrefix(run, "//"): // URL (https://…) or protocol-relative
		return "", false
	case strings.HasPrefix(run, "~"): // home-relative: the tools do not expand it
		return "", false
	case before == '$' || before == '%' || before == '\\' || before == ':' && run[0] == '/':
		// $HOME/x.go, %APPDATA%, an escape, scheme:/path — not a path as written.
		return "", false
	}
	base := run[strings.LastIndexByte(run, '/')+1:]
	dot := strings.LastIndexByte(base, '.')
	if dot <= 0 || !plausibleExtension(base[dot+1:]) {
		return "", false
	}
	return run, true
}

// plausibleExtension accepts 1–10 letters and digits with at least one
// letter, in one case: "go", "py", "tsx", "mp4", "H". Mixed case ("Println"
// in fmt.Println) and pure numbers ("2" in v1.2) are code and versions.
func plausibleExtension(ext string) bool {
	if len(ext) == 0 || len(ext) > 10 {
		return false
	}
	lower, upper := false, false
	for i := 0; i < len(ext); i++ {
		switch c := ext[i]; {
		case 'a' <= c && c <= 'z':
			lower = true
		case 'A' <= c && c <= 'Z':
			upper = true
		case '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return lower != upper
}
