package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	small := measure{Name: "p.small", Lines: 10, Complexity: 3}
	long := measure{Name: "p.long", Lines: MaxLines + 20, Complexity: 3}
	tangled := measure{Name: "p.tangled", Lines: 30, Complexity: MaxComplexity + 5}
	cases := []struct {
		name     string
		measures []measure
		listed   []measure
		want     []string // a substring per problem, in order
	}{
		{"within the budget", []measure{small}, nil, nil},
		{"over and not listed", []measure{long, tangled}, nil, []string{"p.long has", "p.tangled has"}},
		{"listed at its figures", []measure{long}, []measure{long}, nil},
		{"grew past its listing", []measure{{Name: "p.long", Lines: long.Lines + 1, Complexity: 3}}, []measure{long}, []string{"p.long grew"}},
		{"back within the budget", []measure{small}, []measure{{Name: "p.small", Lines: 200, Complexity: 40}}, []string{"p.small is within the budget now"}},
		{"listed but gone", nil, []measure{long}, []string{"p.long is listed"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			listed := map[string]measure{}
			for _, m := range tc.listed {
				listed[m.Name] = m
			}
			got := check(tc.measures, listed)
			if len(got) != len(tc.want) {
				t.Fatalf("problems %q, want %d", got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to say %q", i, got[i], w)
				}
			}
		})
	}
}

// The measures come from real source: a method's name carries its
// receiver, and its lines and complexity are counted.
func TestMeasureFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	src := "package p\n\ntype T struct{}\n\nfunc (t *T) M(x int) int {\n\tif x > 0 {\n\t\treturn 1\n\t}\n\treturn 0\n}\n"
	if err := os.MkdirAll(filepath.Join(root, "internal", "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "internal", "p", "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ms, err := measureFiles(root, []string{"internal/p/p.go"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].Name != "internal/p.(*T).M" || ms[0].Lines != 6 || ms[0].Complexity != 2 {
		t.Fatalf("measures %+v", ms)
	}
}
