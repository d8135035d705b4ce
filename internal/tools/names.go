package tools

import (
	"fmt"
	"strings"
)

// Sourced is a tool that can say where it comes from, for a message that
// names two tools of one name ("MCP server \"fs\" (its tool \"read\")").
// A tool without it is a built-in.
type Sourced interface {
	Source() string
}

// UniqueNames is the one owner of tool names: it returns set without the
// tools whose name another tool has, compared without regard to case
// (Lookup and the permission rules match names that way, so two such
// tools would be one to the model and to a rule). Neither of two such
// tools is offered — keeping the first would let a server whose name
// sorts first take the calls, and the allow rules, meant for the other —
// except that a built-in keeps its name. Each such name is reported once
// to warn (nil drops it), with every source.
func UniqueNames(set []Tool, warn func(string)) []Tool {
	byName := make(map[string][]Tool, len(set))
	for _, t := range set {
		key := strings.ToLower(t.Name())
		byName[key] = append(byName[key], t)
	}
	out := make([]Tool, 0, len(set))
	for _, t := range set {
		same := byName[strings.ToLower(t.Name())]
		if len(same) == 1 {
			out = append(out, t)
			continue
		}
		if same[0] != t {
			if _, sourced := t.(Sourced); !sourced {
				out = append(out, t) // a built-in after an extra tool: keeps its name
			}
			continue
		}
		sources := make([]string, len(same))
		kept := "neither is offered"
		for i, s := range same {
			sources[i] = toolSource(s)
			if _, sourced := s.(Sourced); !sourced {
				kept = "only the built-in is offered"
			}
		}
		if _, sourced := t.(Sourced); !sourced {
			out = append(out, t)
		}
		if warn != nil {
			warn(fmt.Sprintf("tool name %q is published by %s: %s, so that no call or rule reaches one meant for another",
				t.Name(), strings.Join(sources, " and by "), kept))
		}
	}
	return out
}

func toolSource(t Tool) string {
	if s, ok := t.(Sourced); ok {
		return s.Source()
	}
	return "clawdcode (built-in)"
}
