package search

import (
	"reflect"
	"testing"
)

func TestPiecesCutAtTheQueryWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text, query string
		want        []Piece
	}{
		{"fix the Parser now", "parser", []Piece{{"fix the ", false}, {"Parser", true}, {" now", false}}},
		{"parser", "parser", []Piece{{"parser", true}}},
		{"a parser, the parser", `"the parser"`, []Piece{{"a ", false}, {"parser", true}, {", ", false}, {"the", true}, {" ", false}, {"parser", true}}},
		{"nothing here", "parser", []Piece{{"nothing here", false}}},
		{"", "parser", []Piece{{"", false}}},
	} {
		if got := Pieces(tc.text, tc.query); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Pieces(%q, %q) = %+v, want %+v", tc.text, tc.query, got, tc.want)
		}
	}
}
