package main

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// enginePkg is the engine's package, relative to the module.
const enginePkg = "internal/agent"

// checkSeams type-checks every front end of mod (a package that imports
// the engine) and lists the type assertions it makes on the engine.
func checkSeams(root string, mod *module) ([]string, error) {
	engine := mod.Path + "/" + enginePkg
	var fronts []pkg
	for _, p := range mod.Pkgs {
		if p.Path != engine && slices.Contains(p.Imports, engine) && len(p.GoFiles) > 0 {
			fronts = append(fronts, p)
		}
	}
	if len(fronts) == 0 {
		return nil, nil
	}
	paths := make([]string, len(fronts))
	for i, p := range fronts {
		paths[i] = p.Path
	}
	exports, err := exportData(root, paths)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	var checked []*frontEnd
	for _, p := range fronts {
		fe, err := typeCheck(fset, imp, p)
		if err != nil {
			return nil, err
		}
		checked = append(checked, fe)
	}
	// An interface any front end checks against a part is a part's face
	// in every front end (the REPL uses slash's).
	faces := map[*types.TypeName]bool{}
	for _, fe := range checked {
		for tn := range fe.faces(engine) {
			faces[tn] = true
		}
	}
	var faults []string
	for _, fe := range checked {
		faults = append(faults, fe.assertions(engine, faces)...)
	}
	sort.Strings(faults)
	return faults, nil
}

// frontEnd is one front end's files and their types.
type frontEnd struct {
	fset  *token.FileSet
	files []*ast.File
	info  *types.Info
	root  string // for the paths faults name
}

func typeCheck(fset *token.FileSet, imp types.Importer, p pkg) (*frontEnd, error) {
	fe := &frontEnd{fset: fset, info: &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}}
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", name, err)
		}
		fe.files = append(fe.files, f)
	}
	conf := types.Config{Importer: imp}
	if _, err := conf.Check(p.Path, fset, fe.files, fe.info); err != nil {
		return nil, fmt.Errorf("type-check %s: %w", p.Rel, err)
	}
	fe.root = p.Dir[:len(p.Dir)-len(p.Rel)]
	return fe, nil
}

// faces are the interfaces this front end checks against an engine's
// type: the I of each `var _ I = (*agent.T)(nil)`.
func (fe *frontEnd) faces(engine string) map[*types.TypeName]bool {
	out := map[*types.TypeName]bool{}
	for _, f := range fe.files {
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.ValueSpec)
			if !ok || spec.Type == nil || len(spec.Values) != len(spec.Names) {
				return true
			}
			for i, name := range spec.Names {
				if name.Name != "_" || !fromPackage(fe.info.TypeOf(spec.Values[i]), engine) {
					continue
				}
				if named, ok := fe.info.TypeOf(spec.Type).(*types.Named); ok && types.IsInterface(named) {
					out[named.Obj()] = true
				}
			}
			return true
		})
	}
	return out
}

// assertions are the type assertions and type switches of this front end
// that find something of the engine at run time.
func (fe *frontEnd) assertions(engine string, faces map[*types.TypeName]bool) []string {
	var faults []string
	report := func(at ast.Node, what string) {
		pos := fe.fset.Position(at.Pos())
		rel, err := filepath.Rel(fe.root, pos.Filename)
		if err != nil {
			rel = pos.Filename
		}
		faults = append(faults, fmt.Sprintf("%s:%d: %s: a front end reaches the engine through the parts' interfaces it declares, never by a type assertion (ARCHITECTURE.md, Seams)", rel, pos.Line, what))
	}
	onEngine := func(x ast.Expr) bool {
		t := fe.info.TypeOf(x)
		if named, ok := t.(*types.Named); ok && faces[named.Obj()] {
			return true
		}
		return fromPackage(t, engine)
	}
	for _, f := range fe.files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeAssertExpr:
				switch {
				case n.Type == nil: // x.(type): the switch's, below
				case onEngine(n.X):
					report(n, "a type assertion on an engine part")
				case n.Type != nil && fromPackage(fe.info.TypeOf(n.Type), engine):
					report(n, "a type assertion to a type of the engine")
				}
			case *ast.TypeSwitchStmt:
				fe.switchFaults(n, engine, onEngine, report)
			}
			return true
		})
	}
	return faults
}

// switchFaults reports a type switch on an engine part, or one with a
// case of a type of the engine.
func (fe *frontEnd) switchFaults(n *ast.TypeSwitchStmt, engine string, onEngine func(ast.Expr) bool, report func(ast.Node, string)) {
	var x ast.Expr
	switch a := n.Assign.(type) {
	case *ast.ExprStmt:
		x = a.X.(*ast.TypeAssertExpr).X
	case *ast.AssignStmt:
		x = a.Rhs[0].(*ast.TypeAssertExpr).X
	}
	if onEngine(x) {
		report(n, "a type switch on an engine part")
		return
	}
	for _, c := range n.Body.List {
		for _, t := range c.(*ast.CaseClause).List {
			if fromPackage(fe.info.TypeOf(t), engine) {
				report(t, "a type switch case of a type of the engine")
			}
		}
	}
}

// fromPackage reports whether t (or what it points to) is a named type of
// package path.
func fromPackage(t types.Type, path string) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*types.Named)
	return ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == path
}
