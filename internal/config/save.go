package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/clawdcode/clawdcode/internal/tools"
	"github.com/pelletier/go-toml/v2/unstable"
)

// SaveRule adds rule to the [permissions] allow of the configuration file
// at path (a project's .clawdcode/config.toml), creating the file and its
// directory when missing. Only the allow array is edited — or one line or
// table added — so the user's comments, order and formatting stay; a rule
// already there is not added twice. The result is checked to parse and to
// hold the rule before it atomically replaces the file. A file that does
// not parse, or that writes permissions in a form this cannot edit
// safely, is left as it was (ErrInvalid, ErrCannotSave).
func SaveRule(path string, rule tools.Rule) error {
	doc, err := readBounded(path)
	mode := fs.FileMode(0o644)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		doc = nil
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("save rule %s: %w", rule, err)
		}
	case err != nil:
		return fmt.Errorf("save rule %s: read %s: %w", rule, path, err)
	default:
		if info, err := os.Stat(path); err == nil {
			mode = info.Mode().Perm()
		}
	}
	if len(doc) > 0 {
		f, err := parseFile(path, doc, nil)
		if err != nil {
			return fmt.Errorf("save rule %s: %w", rule, err)
		}
		if slices.Contains(f.Permissions.Allow, rule) {
			return nil
		}
	}
	updated, err := insertAllow(doc, rule.String())
	if err != nil {
		return fmt.Errorf("save rule %s to %s: %w", rule, path, err)
	}
	f, err := parseFile(path, updated, nil)
	if err != nil || !slices.Contains(f.Permissions.Allow, rule) {
		return fmt.Errorf("save rule %s to %s: %w (the edit did not give a valid file; it is unchanged)", rule, path, ErrCannotSave)
	}
	if err := tools.WriteFileAtomic(path, updated, mode); err != nil {
		return fmt.Errorf("save rule %s to %s: %w", rule, path, err)
	}
	return nil
}

// insertAllow returns doc with value added to [permissions] allow.
func insertAllow(doc []byte, value string) ([]byte, error) {
	quoted := tomlString(value)
	var p unstable.Parser
	p.Reset(doc)
	// Nodes live only until the next expression: what is needed of them
	// is taken at once.
	var (
		table     []string
		headerEnd = -1 // offset after the [permissions] header line
		arrayAt   = -1 // where an element goes into an existing allow
		arrayText string
	)
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyParts(e.Key())
			if e.Kind == unstable.Table && slices.Equal(table, []string{"permissions"}) {
				it := e.Key()
				var last *unstable.Node
				for it.Next() {
					last = it.Node()
				}
				headerEnd = lineEnd(doc, int(last.Raw.Offset+last.Raw.Length))
			}
		case unstable.KeyValue:
			full := append(slices.Clone(table), keyParts(e.Key())...)
			switch {
			case slices.Equal(full, []string{"permissions", "allow"}) && len(table) == 1:
				if e.Value().Kind != unstable.Array {
					return nil, fmt.Errorf("%w: permissions.allow is not an array", ErrCannotSave)
				}
				keyEnd := 0
				it := e.Key()
				for it.Next() {
					n := it.Node()
					keyEnd = int(n.Raw.Offset + n.Raw.Length)
				}
				var err error
				if arrayAt, arrayText, err = arrayInsertion(doc, e.Value(), keyEnd, quoted); err != nil {
					return nil, err
				}
			case len(full) > 0 && full[0] == "permissions" && len(table) == 0:
				// permissions = {…} or permissions.allow = […] at the top.
				return nil, fmt.Errorf("%w: permissions is written as an inline table or dotted keys; add %s to its allow by hand", ErrCannotSave, value)
			}
		}
	}
	if err := p.Error(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}

	var out bytes.Buffer
	switch {
	case arrayAt >= 0:
		out.Write(doc[:arrayAt])
		out.WriteString(arrayText)
		out.Write(doc[arrayAt:])
	case headerEnd >= 0:
		out.Write(doc[:headerEnd])
		if headerEnd > 0 && doc[headerEnd-1] != '\n' {
			out.WriteByte('\n')
		}
		fmt.Fprintf(&out, "allow = [%s]\n", quoted)
		out.Write(doc[headerEnd:])
	default:
		out.Write(doc)
		if len(doc) > 0 {
			if doc[len(doc)-1] != '\n' {
				out.WriteByte('\n')
			}
			out.WriteByte('\n')
		}
		fmt.Fprintf(&out, "[permissions]\nallow = [%s]\n", quoted)
	}
	return out.Bytes(), nil
}

// arrayInsertion finds where in doc to add an element to the array value
// of a key ending at keyEnd: after its last element, or inside the
// brackets of an empty one.
func arrayInsertion(doc []byte, array *unstable.Node, keyEnd int, quoted string) (int, string, error) {
	var last *unstable.Node
	it := array.Children()
	for it.Next() {
		if n := it.Node(); n.Kind != unstable.Comment {
			last = n
		}
	}
	if last != nil {
		if last.Kind != unstable.String || last.Raw.Length == 0 {
			return 0, "", fmt.Errorf("%w: permissions.allow holds something other than strings", ErrCannotSave)
		}
		return int(last.Raw.Offset + last.Raw.Length), ", " + quoted, nil
	}
	// An empty array: the first '[' after the key's '='.
	rest := doc[keyEnd:]
	eq := bytes.IndexByte(rest, '=')
	if eq < 0 {
		return 0, "", ErrCannotSave
	}
	open := bytes.IndexByte(rest[eq:], '[')
	if open < 0 {
		return 0, "", ErrCannotSave
	}
	return keyEnd + eq + open + 1, quoted, nil
}

func keyParts(it unstable.Iterator) []string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

// lineEnd is the offset just after the newline ending the line that holds
// offset at (or the end of doc).
func lineEnd(doc []byte, at int) int {
	if i := bytes.IndexByte(doc[at:], '\n'); i >= 0 {
		return at + i + 1
	}
	return len(doc)
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		case r == utf8.RuneError:
			b.WriteString(`\uFFFD`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
