package telemetry

import (
	"encoding/json"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// linesChanged is how many lines a successful Write or Edit call added and
// removed, read from its input: an Edit's old and new strings compared
// line by line (times the occurrences it replaced, when it replaced all,
// is not known here: one), a Write's content as added lines (the file's
// earlier content is not in the call).
func linesChanged(tool string, input json.RawMessage) (added, removed int) {
	switch tool {
	case "Edit":
		var in struct {
			Old string `json:"old_string"`
			New string `json:"new_string"`
		}
		if json.Unmarshal(input, &in) != nil {
			return 0, 0
		}
		return diffLines(in.Old, in.New)
	case "Write":
		var in struct {
			Content string `json:"content"`
		}
		if json.Unmarshal(input, &in) != nil {
			return 0, 0
		}
		return countLines(in.Content), 0
	}
	return 0, 0
}

// diffLines counts the lines of a unified diff of a and b that start with
// '+' and '-'.
func diffLines(a, b string) (added, removed int) {
	d := udiff.Unified("a", "b", a, b)
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
