// Command archcheck holds the code to the map ARCHITECTURE.md draws, so
// the map stays true and the seams stay seams. `make lint` runs it; it
// fails, naming each fault, when
//
//   - an import breaks the map's direction (layers.go): the map's table
//     puts every package of the module on a layer, and a package imports
//     only from the layers below its own; a tests-only package imports
//     anything, and no other package imports it. A package the map does
//     not name is a fault too, so the map grows with the code (a package
//     below a named one belongs to it: internal/tokens/internal/x is
//     internal/tokens);
//   - a front end asserts a type on the engine (seams.go): a front end is
//     any package that imports internal/agent, and it reaches the engine
//     only through the small interfaces it declares, each checked against
//     an engine part with `var _ I = (*agent.T)(nil)`; a type assertion
//     or type switch on a value of such an interface, on a value of a
//     type of package agent, or to a type of package agent would find a
//     feature at run time instead, and is refused.
//
// It reads the packages through `go list` (the imports as the build sees
// them, test files apart) and type-checks the front ends from their
// source over the compiler's export data of what they import.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

var errFaults = errors.New("the code does not match ARCHITECTURE.md")

func main() {
	root := flag.String("root", ".", "the module's root (where ARCHITECTURE.md is)")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "archcheck:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	doc, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		return fmt.Errorf("read the map: %w", err)
	}
	m, err := parseMap(string(doc))
	if err != nil {
		return fmt.Errorf("ARCHITECTURE.md: %w", err)
	}
	mod, err := listModule(root)
	if err != nil {
		return err
	}
	faults := m.check(mod)
	seams, err := checkSeams(root, mod)
	if err != nil {
		return err
	}
	faults = append(faults, seams...)
	for _, f := range faults {
		fmt.Fprintln(os.Stderr, f)
	}
	if len(faults) > 0 {
		return fmt.Errorf("%d fault(s): %w", len(faults), errFaults)
	}
	return nil
}
