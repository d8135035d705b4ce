package search

import (
	"encoding/json"
	"errors"
	"sort"

	"github.com/clawdcode/clawdcode/internal/storage"
)

// line is the part of a session record that search reads: the type and
// the searchable text fields. Decoding into it skips every other field.
type line struct {
	Type    string `json:"type"`
	Message *struct {
		Content string `json:"content"`
	} `json:"message"`
	Tool *struct {
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"tool"`
	ToolResult *struct {
		Output string `json:"output"`
		Error  string `json:"error"`
	} `json:"toolResult"`
}

// searchable reports whether records of this type are searched: user
// (compaction summaries included), assistant, tool input and tool output
// (CONTRACT.md section 6). System records, titles and clawdcode's other
// records are not.
func searchable(typ string) bool {
	switch typ {
	case storage.TypeUser, storage.TypeAssistant, storage.TypeToolUse, storage.TypeToolResult:
		return true
	}
	return false
}

// cheapType finds the record type without decoding the line, so that the
// records search skips cost no decoding. Only a line in the store's own
// encoding tells it (storage.ParseHead); it reports false for any other,
// which is then decoded.
func cheapType(raw []byte) (string, bool) {
	h, ok := storage.ParseHead(raw)
	return h.Type, ok
}

// errReread is recordText's answer for a line it decoded over itself and
// could not read: the line is spoilt, and must be read again and handed
// to encoding/json.
var errReread = errors.New("line overwritten: read it again")

// recordText returns the searchable text of one session line and reports
// whether the line is a searchable record; the text is the scanner's and
// valid until its next use. A line that does not parse is not (err says
// why). inPlace lets a huge line be decoded over itself (see scanRecord).
func recordText(sc *scanner, raw []byte, inPlace bool) ([]byte, bool, error) {
	if t, ok := cheapType(raw); ok && !searchable(t) {
		return nil, false, nil
	}
	if text, typ, ok := sc.scanRecord(raw, inPlace); ok {
		return text, searchable(typ), nil
	}
	if sc.inPlace {
		return nil, false, errReread
	}
	var l line
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, false, err
	}
	if !searchable(l.Type) {
		return nil, false, nil
	}
	sc.out = appendText(sc.out[:0], &l)
	return sc.out, true, nil
}

func appendText(dst []byte, l *line) []byte {
	if l.Message != nil {
		dst = append(dst, l.Message.Content...)
	}
	if l.Tool != nil {
		dst = append(dst, l.Tool.Name...)
		dst = appendJSONStrings(append(dst, '\n'), l.Tool.Input)
	}
	if l.ToolResult != nil {
		dst = append(dst, l.ToolResult.Output...)
		if l.ToolResult.Error != "" {
			dst = append(append(dst, '\n'), l.ToolResult.Error...)
		}
	}
	return dst
}

// appendJSONStrings appends the string values of a tool's input (its
// keys are the tool's parameter names, not what the user wrote), one per
// line, in key order.
func appendJSONStrings(dst []byte, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return dst
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return dst
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			dst = append(append(dst, x...), '\n')
		case float64, bool:
			b, _ := json.Marshal(x)
			dst = append(append(dst, b...), '\n')
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k])
			}
		}
	}
	walk(v)
	return dst
}

// WithRecordText calls fn with the searchable text of one session line
// (see the package doc: what is searched) and reports whether the line is
// a searchable record; the text is valid only during fn. The text is
// decoded once into a buffer that is reused, so a 100 MB record costs
// about its size once, whoever reads it (the Recall tool's scan does).
func WithRecordText(line []byte, fn func(text []byte)) bool {
	var sc scanner
	defer dropSpare()
	defer sc.release()
	text, ok, err := recordText(&sc, line, false)
	if err != nil || !ok {
		return false
	}
	fn(text)
	return true
}
