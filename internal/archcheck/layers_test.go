package main

import (
	"strings"
	"testing"
)

const testMap = `# A map

Some words.

` + mapMarker + `
| layer | packages | holds |
|---|---|---|
| top | ` + "`cmd/x`" + ` | the main |
| middle | ` + "`internal/a`, `internal/b`" + ` | a and b |
| bottom | ` + "`internal/leaf`" + ` | words |
| tests only | ` + "`internal/fake`" + ` | fakes |

After the table.
`

func mod(pkgs ...pkg) *module {
	m := &module{Path: "example.com/m"}
	for _, p := range pkgs {
		p.Path = m.Path + "/" + p.Rel
		for i, imp := range p.Imports {
			p.Imports[i] = m.Path + "/" + imp
		}
		m.Pkgs = append(m.Pkgs, p)
	}
	return m
}

func TestParseMap(t *testing.T) {
	t.Parallel()
	m, err := parseMap(testMap)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.layers) != 4 || m.layers[1].label != "middle" || strings.Join(m.layers[1].pkgs, " ") != "internal/a internal/b" {
		t.Fatalf("layers %+v", m.layers)
	}
	if _, err := parseMap("# no map here\n"); err == nil {
		t.Fatal("a document without the marker parsed")
	}
	if _, err := parseMap(mapMarker + "\n| a | `x` |\n| b | `x` |\n"); err == nil {
		t.Fatal("a package named twice parsed")
	}
}

// Each fault the map can find, and none where the code follows it.
func TestCheckLayers(t *testing.T) {
	t.Parallel()
	m, err := parseMap(testMap)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		mod  *module
		want []string // a substring per fault, in order
	}{
		{"downwards only", mod(
			pkg{Rel: "cmd/x", Imports: []string{"internal/a", "internal/leaf"}},
			pkg{Rel: "internal/a", Imports: []string{"internal/leaf", "internal/a/sub"}},
			pkg{Rel: "internal/a/sub"},
			pkg{Rel: "internal/b"},
			pkg{Rel: "internal/leaf"},
			pkg{Rel: "internal/fake", Imports: []string{"cmd/x"}},
		), nil},
		{"an import up", mod(
			pkg{Rel: "cmd/x"}, pkg{Rel: "internal/a"}, pkg{Rel: "internal/b"}, pkg{Rel: "internal/fake"},
			pkg{Rel: "internal/leaf", Imports: []string{"internal/a"}},
		), []string{`internal/leaf imports internal/a: internal/leaf (layer "bottom") may import only from the layers below it`}},
		{"an import across", mod(
			pkg{Rel: "cmd/x"}, pkg{Rel: "internal/a", Imports: []string{"internal/b"}}, pkg{Rel: "internal/b"},
			pkg{Rel: "internal/leaf"}, pkg{Rel: "internal/fake"},
		), []string{"internal/a imports internal/b"}},
		{"a test package in the product", mod(
			pkg{Rel: "cmd/x", Imports: []string{"internal/fake"}}, pkg{Rel: "internal/a"}, pkg{Rel: "internal/b"},
			pkg{Rel: "internal/leaf"}, pkg{Rel: "internal/fake"},
		), []string{"cmd/x imports internal/fake, which only tests may use"}},
		{"a package off the map, a name that is none", mod(
			pkg{Rel: "cmd/x"}, pkg{Rel: "internal/a"}, pkg{Rel: "internal/leaf"}, pkg{Rel: "internal/fake"},
			pkg{Rel: "internal/new"},
		), []string{"ARCHITECTURE.md's map names internal/b, which is no package", "internal/new is not on ARCHITECTURE.md's map"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := m.check(tc.mod)
			if len(got) != len(tc.want) {
				t.Fatalf("faults %q, want %d", got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("fault %d = %q, want it to say %q", i, got[i], w)
				}
			}
		})
	}
}
