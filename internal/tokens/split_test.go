package tokens

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// splitCorpus is every text the counter is checked against: the token
// vectors, the realistic corpus, ~256 KB of this repository's Go source
// (32 KB under the race detector), and texts made to sit on the edges of
// the cut rule.
func splitCorpus(t *testing.T) []string {
	t.Helper()
	codeBytes := 256 << 10
	if raceDetector {
		codeBytes = 32 << 10
	}
	var texts []string
	for _, v := range tokenVectors(t) {
		texts = append(texts, v.Text)
	}
	for _, s := range corpusSamples(t) {
		texts = append(texts, s.Text)
	}
	var code strings.Builder
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || code.Len() > codeBytes {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			data, err := os.ReadFile(path)
			if err == nil {
				code.Write(data)
			}
		}
		return nil
	})
	if err != nil && err != fs.SkipDir {
		t.Fatal(err)
	}
	texts = append(texts, code.String())
	edges := []string{
		"}\n// comment\n//path\n/x\nfunc f() {}\n",
		"a\r\nb\n\nc\n 1\n22\n333\n4444\n's\n'll\nThe\nthe\n",
		"x=1\n\t\ty\n  z\n\u00e9t\u00e9\n\u65e5\u672c\n\u00a0a\nZ\n",
		strings.Repeat("=", 3000) + "\nA" + strings.Repeat("b", 3000) + "\n9\n",
		strings.Repeat("line of text\n", 2000),
	}
	return append(texts, edges...)
}

// TestChunksEncodeAsTheWhole: the chunks a text is cut into encode to the
// very tokens of the whole text, in both encodings, on every corpus text.
func TestChunksEncodeAsTheWhole(t *testing.T) {
	t.Parallel()
	texts := splitCorpus(t)
	for _, name := range []string{O200kBase, Cl100kBase} {
		ref := referenceEncoding(t, name)
		cuts := 0
		for _, s := range texts {
			parts := chunks(s)
			if strings.Join(parts, "") != s {
				t.Fatalf("the parts of a %d-byte text do not make it up", len(s))
			}
			cuts += len(parts) - 1
			var ids []int
			for _, p := range parts {
				ids = append(ids, ref.EncodeOrdinary(p)...)
			}
			if want := ref.EncodeOrdinary(s); !slices.Equal(ids, want) {
				t.Errorf("%s: the parts of %.60q encode to other tokens than the whole", name, s)
			}
		}
		if cuts < 1000 {
			t.Errorf("%s: only %d cuts over the corpus; the test proves little", name, cuts)
		}
	}
}

// TestTextCountsLongTextsInChunks: Text counts a long text in chunks, in
// parallel, and gets the count of the whole; a text with no cut is one
// chunk.
func TestTextCountsLongTextsInChunks(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("func f(x int) int {\n\treturn x * 2 // double\n}\n", 1200)
	if parts := chunks(s); len(parts) != 1200 {
		t.Fatalf("a %d-byte text of 1200 functions is cut into %d chunks, want 1200", len(s), len(parts))
	}
	if got, want := NewCounter("gpt-4o").Text(s), len(referenceEncoding(t, O200kBase).EncodeOrdinary(s)); got != want {
		t.Errorf("Text = %d, the whole counts %d", got, want)
	}
	for _, s := range []string{"short\n text", "", "\n\n", "x\n"} {
		if parts := chunks(s); len(parts) != 1 || parts[0] != s {
			t.Errorf("chunks(%q) = %q, want it whole", s, parts)
		}
	}
}
