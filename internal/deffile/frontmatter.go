package deffile

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A definition file's front matter is YAML (the format the same files
// have for other agents), read by a YAML parser: a block mapping between
// a first line "---" and the next line "---". Its keys are read in any
// case. What a file says that does not parse, or has a shape a key does
// not take (a mapping where a text is due), is an error, and the caller
// skips the file: a definition is never read from half of its front
// matter, so a limit it meant to set (tools:) cannot be lost by a typo.

// ErrFrontMatter is wrapped by the error of a front matter that cannot be
// read.
var ErrFrontMatter = errors.New("front matter")

// FrontMatter is the parsed front matter of a definition file; the zero
// value is an empty one (a file without the block).
type FrontMatter struct {
	fields map[string]*yaml.Node // keys lower-cased
}

// SplitFrontMatter separates a definition file's leading front matter
// from its body; CRLF line ends are read as LF. Without the block (no
// first line "---", or no closing one), the front matter is empty and the
// body is the whole text. A block that is not a YAML mapping is an error
// wrapping ErrFrontMatter.
func SplitFrontMatter(s string) (FrontMatter, string, error) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	rest, ok := strings.CutPrefix(s, "---\n")
	if !ok {
		return FrontMatter{}, s, nil
	}
	block, body, ok := cutClosing(rest)
	if !ok {
		return FrontMatter{}, s, nil
	}
	fm, err := parseFrontMatter(block)
	if err != nil {
		return FrontMatter{}, "", err
	}
	return fm, body, nil
}

// cutClosing splits rest at its first line that is "---" (trailing blanks
// allowed).
func cutClosing(rest string) (block, body string, ok bool) {
	for off := 0; off < len(rest); {
		line, _, _ := strings.Cut(rest[off:], "\n")
		if strings.TrimRight(line, " \t") == "---" {
			body = rest[min(off+len(line)+1, len(rest)):]
			return rest[:off], body, true
		}
		off += len(line) + 1
	}
	return "", "", false
}

func parseFrontMatter(block string) (FrontMatter, error) {
	var doc yaml.Node
	// After the opening "---": the lines the parser names are the file's.
	if err := yaml.Unmarshal([]byte("\n"+block), &doc); err != nil {
		return FrontMatter{}, fmt.Errorf("%w: %v (quote a value that holds ': ', ' #' or brackets)", ErrFrontMatter, err)
	}
	fm := FrontMatter{fields: map[string]*yaml.Node{}}
	if len(doc.Content) == 0 { // an empty block
		return fm, nil
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return FrontMatter{}, fmt.Errorf("%w: not a list of key: value lines", ErrFrontMatter)
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return FrontMatter{}, fmt.Errorf("%w: line %d: a key that is not a name", ErrFrontMatter, k.Line)
		}
		key := strings.ToLower(strings.TrimSpace(k.Value))
		if _, dup := fm.fields[key]; dup {
			return FrontMatter{}, fmt.Errorf("%w: line %d: %s: given twice", ErrFrontMatter, k.Line, key)
		}
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		fm.fields[key] = v
	}
	return fm, nil
}

// Text is the value of key as text ("" when the key is absent or has no
// value). A flow list of texts ("[message]", as argument hints are
// written) is given as written; any other list or a mapping is an error.
func (f FrontMatter) Text(key string) (string, error) {
	v := f.fields[key]
	switch {
	case v == nil || isNull(v):
		return "", nil
	case v.Kind == yaml.ScalarNode:
		return v.Value, nil
	case v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle != 0:
		items, err := scalars(key, v)
		if err != nil {
			return "", err
		}
		return "[" + strings.Join(items, ", ") + "]", nil
	}
	return "", fmt.Errorf("%w: line %d: %s: want a text", ErrFrontMatter, v.Line, key)
}

// Names is the value of key as a list of names: a YAML list ("[Read,
// Grep]" or one "- Read" line each) or a comma-separated text ("Read,
// Grep"), blanks trimmed, empty names dropped. set is false when the key
// is absent. A key written without a value is an error, not an empty or
// a missing list: what the writer meant is not known, and the caller must
// neither widen nor guess ("[]" is the empty list).
func (f FrontMatter) Names(key string) (names []string, set bool, err error) {
	v := f.fields[key]
	switch {
	case v == nil:
		return nil, false, nil
	case isNull(v):
		return nil, true, fmt.Errorf("%w: line %d: %s: has no value (write [] for none)", ErrFrontMatter, v.Line, key)
	case v.Kind == yaml.ScalarNode:
		names = []string{}
		for _, n := range strings.Split(v.Value, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		return names, true, nil
	case v.Kind == yaml.SequenceNode:
		items, err := scalars(key, v)
		if err != nil {
			return nil, true, err
		}
		names = []string{}
		for _, n := range items {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		return names, true, nil
	}
	return nil, true, fmt.Errorf("%w: line %d: %s: want a list of names", ErrFrontMatter, v.Line, key)
}

// scalars are the items of the list v, each of which must be a text.
func scalars(key string, v *yaml.Node) ([]string, error) {
	items := make([]string, 0, len(v.Content))
	for _, it := range v.Content {
		if it.Kind == yaml.AliasNode {
			it = it.Alias
		}
		if it.Kind != yaml.ScalarNode || isNull(it) {
			return nil, fmt.Errorf("%w: line %d: %s: an item that is not a name", ErrFrontMatter, it.Line, key)
		}
		items = append(items, it.Value)
	}
	return items, nil
}

func isNull(v *yaml.Node) bool { return v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" }
