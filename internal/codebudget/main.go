// Command codebudget holds the code to a size and complexity budget, so
// drift stops where it starts: every function and method outside tests
// stays within MaxLines lines and MaxComplexity cyclomatic complexity
// (gocyclo's measure), or is listed in exceptions.txt with the figures it
// had when it was listed, which it may not exceed. `make lint` runs it.
//
// A listed function that is back within the budget, or gone, fails the
// check too, so the list only ever shrinks and says what is true; run
// with -write after such a change to rewrite the list from the code (it
// never raises a ceiling on its own: a function that grew past its listed
// figures must be split, not re-listed).
//
// It reads the files git tracks under cmd/ and internal/ (every .go file
// there when git is not available), never test files: a table test is
// long by nature.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fzipp/gocyclo"
)

// The budget. A function past either figure needs an exception.
const (
	MaxLines      = 80
	MaxComplexity = 25
)

// measure is one function's figures.
type measure struct {
	Name       string // internal/repl.(*editor).read
	Where      string // internal/repl/editor.go:75
	Lines      int
	Complexity int
}

func (m measure) over() bool { return m.Lines > MaxLines || m.Complexity > MaxComplexity }

func main() {
	write := flag.Bool("write", false, "rewrite exceptions.txt from the code (lowering ceilings only)")
	root := flag.String("root", ".", "the repository root")
	flag.Parse()
	if err := run(*root, *write); err != nil {
		fmt.Fprintln(os.Stderr, "codebudget:", err)
		os.Exit(1)
	}
}

var errOverBudget = errors.New("over budget")

func run(root string, write bool) error {
	files, err := goFiles(root)
	if err != nil {
		return err
	}
	measures, err := measureFiles(root, files)
	if err != nil {
		return err
	}
	listPath := filepath.Join(root, "internal", "codebudget", "exceptions.txt")
	listed, err := readExceptions(listPath)
	if err != nil {
		return err
	}
	problems := check(measures, listed)
	if write {
		return writeExceptions(listPath, measures, listed)
	}
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "budget: functions ≤ %d lines, complexity ≤ %d (internal/codebudget)\n", MaxLines, MaxComplexity)
		return fmt.Errorf("%d function(s) %w", len(problems), errOverBudget)
	}
	return nil
}

// check compares the code with the list: a function over the budget and
// not listed, one past its listed figures, and a listed one that is back
// within the budget or gone are each a problem.
func check(measures []measure, listed map[string]measure) []string {
	var problems []string
	seen := map[string]bool{}
	for _, m := range measures {
		ex, ok := listed[m.Name]
		seen[m.Name] = ok
		switch {
		case !m.over() && ok:
			problems = append(problems, fmt.Sprintf("%s: %s is within the budget now (%d lines, complexity %d): remove it from exceptions.txt (codebudget -write)", m.Where, m.Name, m.Lines, m.Complexity))
		case !m.over():
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: %s has %d lines, complexity %d: split it", m.Where, m.Name, m.Lines, m.Complexity))
		case m.Lines > max(ex.Lines, MaxLines) || m.Complexity > max(ex.Complexity, MaxComplexity):
			problems = append(problems, fmt.Sprintf("%s: %s grew to %d lines, complexity %d (listed at %d, %d): split it", m.Where, m.Name, m.Lines, m.Complexity, ex.Lines, ex.Complexity))
		}
	}
	for name := range listed {
		if _, ok := seen[name]; !ok {
			problems = append(problems, fmt.Sprintf("%s is listed in exceptions.txt but no longer exists: remove it (codebudget -write)", name))
		}
	}
	sort.Strings(problems)
	return problems
}

// goFiles lists the non-test Go files under cmd/ and internal/.
func goFiles(root string) ([]string, error) {
	var files []string
	if out, err := exec.Command("git", "-C", root, "ls-files", "--", "cmd", "internal").Output(); err == nil {
		for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, "_test.go") {
				files = append(files, f)
			}
		}
		return files, nil
	}
	for _, dir := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			rel, err := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("list go files: %w", err)
		}
	}
	return files, nil
}

func measureFiles(root string, files []string) ([]measure, error) {
	fset := token.NewFileSet()
	var measures []measure
	for _, f := range files {
		file, err := parser.ParseFile(fset, filepath.Join(root, f), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", f, err)
		}
		pkg := filepath.ToSlash(filepath.Dir(f))
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			start, end := fset.Position(fn.Pos()), fset.Position(fn.End())
			measures = append(measures, measure{
				Name:       pkg + "." + funcName(fn),
				Where:      fmt.Sprintf("%s:%d", f, start.Line),
				Lines:      end.Line - start.Line + 1,
				Complexity: gocyclo.Complexity(fn),
			})
		}
	}
	return measures, nil
}

// funcName is Name, or (Recv).Name / (*Recv).Name for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	star := ""
	if s, ok := t.(*ast.StarExpr); ok {
		star, t = "*", s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return "(" + star + id.Name + ")." + fn.Name.Name
	}
	return fn.Name.Name
}

// readExceptions reads lines "name lines complexity"; # starts a comment.
func readExceptions(path string) (map[string]measure, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]measure{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read exceptions: %w", err)
	}
	defer f.Close()
	listed := map[string]measure{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var m measure
		if _, err := fmt.Sscanf(line, "%s %d %d", &m.Name, &m.Lines, &m.Complexity); err != nil {
			return nil, fmt.Errorf("%s:%d: want \"name lines complexity\": %w", path, n, err)
		}
		listed[m.Name] = m
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read exceptions: %w", err)
	}
	return listed, nil
}

// writeExceptions lists every function over the budget with its figures
// now, never above the ceiling it was listed with before: one that grew
// keeps its old ceiling (and keeps failing) until it is split. A function
// newly over the budget is added as it is: -write is how a reviewed
// exception is granted.
func writeExceptions(path string, measures []measure, listed map[string]measure) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Functions over the budget (%d lines, complexity %d), with the most\n", MaxLines, MaxComplexity)
	fmt.Fprintf(&b, "# they may have: name lines complexity. Written by `go run ./internal/codebudget -write`;\n")
	fmt.Fprintf(&b, "# the list only shrinks (see the package doc).\n")
	sort.Slice(measures, func(i, j int) bool { return measures[i].Name < measures[j].Name })
	for _, m := range measures {
		if !m.over() {
			continue
		}
		if ex, ok := listed[m.Name]; ok {
			m.Lines, m.Complexity = min(m.Lines, max(ex.Lines, MaxLines)), min(m.Complexity, max(ex.Complexity, MaxComplexity))
		}
		fmt.Fprintf(&b, "%s %d %d\n", m.Name, m.Lines, m.Complexity)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write exceptions: %w", err)
	}
	return nil
}
