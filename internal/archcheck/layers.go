package main

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// mapMarker opens the map's table in ARCHITECTURE.md: the rows after it
// are its layers, top to bottom.
const mapMarker = "<!-- archcheck: layers, top to bottom -->"

// testsOnly is the label of the row of packages only tests and tools use.
const testsOnly = "tests only"

// layerMap is the map: each layer's label and packages, top first.
type layerMap struct {
	layers []layer
	// of is the index of the layer that names a package (relative path).
	of map[string]int
}

type layer struct {
	label string
	pkgs  []string
}

var errNoMap = errors.New("no map: the marker " + mapMarker + " and a table after it")

// backticked finds the packages of a row's cell.
var backticked = regexp.MustCompile("`([^`]+)`")

// parseMap reads the table after mapMarker: | label | `pkg`, `pkg` | … |.
func parseMap(doc string) (*layerMap, error) {
	_, rest, ok := strings.Cut(doc, mapMarker)
	if !ok {
		return nil, errNoMap
	}
	m := &layerMap{of: map[string]int{}}
	started := false
	for line := range strings.SplitSeq(rest, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if started {
				break
			}
			continue
		}
		started = true
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 2 || strings.Trim(cells[0], " -:") == "" || strings.TrimSpace(cells[0]) == "layer" {
			continue // the heading and its rule
		}
		l := layer{label: strings.TrimSpace(cells[0])}
		for _, mt := range backticked.FindAllStringSubmatch(cells[1], -1) {
			p := mt[1]
			if _, dup := m.of[p]; dup {
				return nil, fmt.Errorf("the map names %s twice", p)
			}
			m.of[p] = len(m.layers)
			l.pkgs = append(l.pkgs, p)
		}
		m.layers = append(m.layers, l)
	}
	if len(m.layers) == 0 {
		return nil, errNoMap
	}
	return m, nil
}

// entry is the map's name for package rel: itself, or the nearest
// directory above it that the map names ("" = none).
func (m *layerMap) entry(rel string) string {
	for p := rel; ; {
		if _, ok := m.of[p]; ok {
			return p
		}
		i := strings.LastIndex(p, "/")
		if i < 0 {
			return ""
		}
		p = p[:i]
	}
}

// check lists the module's faults against the map: packages it does not
// name, names that are no package, and imports against its direction.
func (m *layerMap) check(mod *module) []string {
	var faults []string
	exists := map[string]bool{}
	for _, p := range mod.Pkgs {
		exists[p.Rel] = true
		if m.entry(p.Rel) == "" {
			faults = append(faults, fmt.Sprintf("%s is not on ARCHITECTURE.md's map: add it to the layer whose packages it imports from below", p.Rel))
		}
	}
	for name := range m.of {
		if !exists[name] && !hasBelow(exists, name) {
			faults = append(faults, fmt.Sprintf("ARCHITECTURE.md's map names %s, which is no package of the module: take it off", name))
		}
	}
	for _, p := range mod.Pkgs {
		faults = append(faults, m.importFaults(mod, p)...)
	}
	sort.Strings(faults)
	return faults
}

// importFaults are p's imports against the map's direction.
func (m *layerMap) importFaults(mod *module, p pkg) []string {
	from := m.entry(p.Rel)
	if from == "" || m.layers[m.of[from]].label == testsOnly {
		return nil
	}
	var faults []string
	for _, imp := range p.Imports {
		to := m.entry(mod.rel(imp))
		if to == "" || to == from {
			continue // outside the module, unnamed (reported), or one family
		}
		fl, tl := m.layers[m.of[from]], m.layers[m.of[to]]
		switch {
		case tl.label == testsOnly:
			faults = append(faults, fmt.Sprintf("%s imports %s, which only tests may use (ARCHITECTURE.md's map)", p.Rel, mod.rel(imp)))
		case m.of[to] <= m.of[from]:
			faults = append(faults, fmt.Sprintf("%s imports %s: %s (layer %q) may import only from the layers below it, and %s is on %q (ARCHITECTURE.md's map)",
				p.Rel, mod.rel(imp), p.Rel, fl.label, mod.rel(imp), tl.label))
		}
	}
	return faults
}

// hasBelow reports whether some package lies under directory dir.
func hasBelow(exists map[string]bool, dir string) bool {
	for p := range exists {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}
