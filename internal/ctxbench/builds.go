package ctxbench

import (
	"fmt"
	"os"
	"path/filepath"
)

// build is the clawdcode a row runs. The tree's is the one the test
// process runs everywhere (built from the module, or
// CLAWDCODE_TEST_BINARY); a baseline (CTXBENCH_BASELINE, another
// commit's build) runs the same rows in the same pool, so both are
// measured under the same load.
type build struct {
	name   string // "base" or "tree": the table's build column
	binary string // "": the binary harness.Main chose
}

var treeBuild = build{name: "tree"}

// builds are the builds every row runs, the baseline first when path (a
// baseline binary) is set: its row is printed right above the tree's.
func builds(path string) ([]build, error) {
	if path == "" {
		return []build{treeBuild}, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", path, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return nil, fmt.Errorf("baseline: %s is not an executable file", abs)
	}
	return []build{{name: "base", binary: abs}, treeBuild}, nil
}
