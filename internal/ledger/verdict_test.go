package ledger

import (
	"strings"
	"testing"

	"github.com/clawdcode/clawdcode/internal/fixtures"
	"github.com/clawdcode/clawdcode/internal/storage"
)

// The verdict of every runner's passing and failing run is kept, read
// from the runners' real output (testdata/fixtures/runners), white space
// folded as the ledger folds it.
func TestVerdictOfEveryRunner(t *testing.T) {
	t.Parallel()
	for _, r := range fixtures.Runners {
		for _, run := range []struct{ file, want string }{{r.Name + "-pass.txt", r.Pass}, {r.Name + "-fail.txt", r.Fail}} {
			out := string(fixtures.Read(t, "runners", run.file))
			got, known := Verdict("make test", out)
			if !known {
				t.Errorf("%s: no runner's format recognised", run.file)
			}
			if !strings.Contains(got, run.want) {
				t.Errorf("%s: verdict %q, want it to hold %q", run.file, got, run.want)
			}
			if len(got) > verdictBytes+len("…") {
				t.Errorf("%s: verdict of %d bytes, over %d", run.file, len(got), verdictBytes)
			}
		}
	}
}

// A run of a script no runner's format matches gives its last line when
// its name or what it printed says it ran tests, and nothing otherwise.
func TestVerdictOfAnUnknownRun(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ cmd, out, want string }{
		{"./run-tests", "building\nrunning 12 checks\n\ntests passed: 12 of 12\n\n", "tests passed: 12 of 12"},
		{"sh ci.sh", "lint ok\n3 specs, 1 broken\n", "3 specs, 1 broken"},
		{"ls -la", "total 12\nfile.txt\n", ""},
		{"make build", "cc -o app main.c\n", ""},
	} {
		if got, _ := Verdict(c.cmd, c.out); got != c.want {
			t.Errorf("Verdict(%q) = %q, want %q", c.cmd, got, c.want)
		}
	}
}

// A long run's failure is kept before its passes: of a hundred packages
// the one that failed, not only the last four that passed.
func TestVerdictKeepsTheFailureOfALongRun(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 100 {
		if i == 40 {
			b.WriteString("--- FAIL: TestX (0.01s)\nFAIL\nFAIL\texample.com/p40\t0.010s\n")
			continue
		}
		b.WriteString("ok  \texample.com/p" + string(rune('a'+i%26)) + "\t0.010s\n")
	}
	got, _ := Verdict("go test ./...", b.String())
	for _, want := range []string{"--- FAIL: TestX", "FAIL example.com/p40 0.010s"} {
		if !strings.Contains(got, want) {
			t.Errorf("verdict %q lacks %q", got, want)
		}
	}
}

// A failed build or linter keeps its first diagnostic and its last line.
func TestFailedBuildKeepsItsDiagnostic(t *testing.T) {
	t.Parallel()
	out := "# example.com/app\n./main.go:3:2: undefined: x\n./main.go:9:1: missing return\nmake: *** [Makefile:3: build] Error 1\n"
	c := commandEntry("make build", "r1", &storage.ToolResult{Output: out, Error: "exit status 2"}, "")
	if c.Exit != 2 || c.Error != "./main.go:3:2: undefined: x | make: *** [Makefile:3: build] Error 1" {
		t.Errorf("entry %+v", c)
	}
}
