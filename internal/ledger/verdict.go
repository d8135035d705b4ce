package ledger

import (
	"regexp"
	"slices"
	"strings"

	"github.com/clawdcode/clawdcode/internal/termtext"
)

// A test run's verdict is what a model must not lose: whether the tests
// passed decides between "done" and another round, and a re-run only to
// find out costs a whole test run. The runners below print their verdict
// as summary lines at the end of a run; the formats are their own, as
// testdata/fixtures/runners shows them (each file's source is in
// testdata/README.md). A command that looks like a test run but prints no
// known summary gives its last non-empty line instead.

// summaryLines are the lines that state a run's totals, each runner's.
// Anchored on the line trimmed of blanks and colours.
var summaryLines = lazyAll(
	// go test: "ok  	pkg	0.16s", "FAIL	pkg	0.15s"
	`^(?:ok|FAIL)\s+\S+\s+(?:\(cached\)|\d[\d.]*m?s)(?:\s+coverage:.*)?$`,
	// pytest: "==== 1 failed, 1 passed in 0.12s ====", "1 passed in 0.12s"
	`^=*\s*\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?)\b.* in \d[\d.]*s\b`,
	// unittest: "Ran 3 tests in 0.001s"
	`^Ran \d+ tests? in \d[\d.]*s$`,
	// jest: "Tests:       1 failed, 2 passed, 3 total", "Test Suites: 1 passed, 1 total"
	`^Test(?:s| Suites):\s+.*\b\d+ total$`,
	// vitest: "Test Files  1 failed | 1 passed (2)", "Tests  3 passed (3)"
	`^Test(?:s| Files)\s+\d+ (?:passed|failed|skipped|todo)\b.*\(\d+\)$`,
	// mocha: "2 passing (9ms)", "1 failing", "1 pending"
	`^\d+ (?:passing \(\d[\d.]*m?s\)|failing|pending)$`,
	// node's test runner, spec reporter: "ℹ tests 3", "ℹ pass 2", "ℹ fail 1"
	`^ℹ (?:tests|pass|fail) \d+$`,
	// TAP producers (node's TAP reporter, tape): "# tests 2", "# pass  1", "# fail  1"
	`^# (?:tests|pass|fail) +\d+$`,
	// cargo test: "test result: ok. 1 passed; 0 failed; …"
	`^test result: (?:ok|FAILED)\. \d+ passed; \d+ failed;.*`,
	// cargo nextest: "Summary [   0.143s] 51 tests run: 49 passed, 2 failed, 0 skipped"
	`^Summary \[\s*\d[\d.]*s\] .*\btests? run: .*`,
	// rspec: "1 example, 0 failures"
	`^\d+ examples?, \d+ failures?\b.*`,
	// minitest: "2 runs, 2 assertions, 1 failures, 0 errors, 0 skips"
	`^\d+ runs?, \d+ assertions?, \d+ failures?, \d+ errors?, \d+ skips?$`,
	// Maven surefire's totals: "[ERROR] Tests run: 50, Failures: 1, Errors: 0, Skipped: 0"
	`^\[(?:INFO|WARNING|ERROR)\] Tests run: \d+, Failures: \d+, Errors: \d+, Skipped: \d+(?:, Flakes: \d+)?$`,
	// Maven: "[INFO] BUILD SUCCESS", "[INFO] BUILD FAILURE"
	`^\[INFO\] BUILD (?:SUCCESS|FAILURE)$`,
	// Gradle: "1 test completed, 1 failed", "BUILD SUCCESSFUL in 1s"
	`^\d+ tests? completed, \d+ failed(?:, \d+ skipped)?$`,
	`^BUILD (?:SUCCESSFUL|FAILED) in \S+$`,
	// phpunit: "OK (2 tests, 2 assertions)", "Tests: 2, Assertions: 2, Failures: 1."
	`^OK \(\d+ tests?, \d+ assertions?\)$`,
	`^Tests: \d+, Assertions: \d+, .*\.$`,
	// dotnet test: "Failed!  - Failed:     2, Passed:     1, Skipped:     1, Total:     4, …"
	`^(?:Passed|Failed)!\s+- Failed:\s+\d+, Passed:\s+\d+, Skipped:\s+\d+, Total:\s+\d+.*`,
	// ctest: "100% tests passed out of 1", "50% tests passed, 1 tests failed out of 2"
	`^\d+% tests passed(?:, \d+ tests failed)? out of \d+$`,
	// Perl's prove: "Result: PASS", "Files=1, Tests=4, …"
	`^Result: (?:PASS|FAIL|NOTESTS)$`,
	// Bun: " 6 pass", " 0 fail", "Ran 6 tests across 3 files. [9.00ms]"
	`^\d+ (?:pass|fail)$`,
	`^Ran \d+ tests? across \d+ files?\.`,
	// TAP's plan: "1..4"
	`^1\.\.\d+$`,
	// Deno: "ok | 16 passed | 0 failed (14ms)", "FAILED | 0 passed | 10 failed (18ms)"
	`^(?:ok|FAILED) \| \d+ passed\b.*\| \d+ failed\b.*`,
)

// okLine is unittest's closing verdict ("OK", "FAILED (failures=1)"),
// a verdict only after its "Ran N tests" line.
var (
	okLine      = lazy(`^(?:OK|FAILED)(?: \(.+\))?$`)
	unittestRan = func() *regexp.Regexp { return summaryLines()[2] }
)

// firstFailure are the lines that name a failing test: the first one a
// run printed goes before its totals.
var firstFailure = lazyAll(
	`^--- FAIL: \S+`,           // go test
	`^FAILED \S+::\S+`,         // pytest's short summary
	`^not ok \d+\b`,            // TAP
	`^test \S+ \.\.\. FAILED$`, // cargo test
)

// failing tells a summary line that reports a failure, so that a long
// run's failures are kept before its passes.
var failing = lazy(`(?i)\bFAIL(?:ED|URE)?\b|\b[1-9]\d* (?:failed|failing|failures?|errors?)\b|\bfail +[1-9]|Failures: [1-9]`)

// Test-looking commands and outputs, for a run no runner's summary was
// recognised in.
var (
	testCommand = lazy(`(?i)(?:^|[\s/._:-])(?:tests?|specs?|pytest|jest|vitest|mocha|rspec|phpunit|ctest|prove|nextest|tox|nox)(?:$|[\s/._:-])`)
	testOutput  = lazy(`(?i)\b\d+\s+(?:tests?|specs?|examples?|assertions?|passed|failed|failures?|passing|failing)\b|\b(?:tests?|specs?)\s+(?:passed|failed)\b|\ball tests passed\b`)
	// ansi is a terminal colour or cursor sequence.
	ansi = lazy(`\x1b\[[0-9;?]*[A-Za-z]`)
)

// Bounds of a verdict: at most verdictSummaries summary lines, and
// verdictBytes of text in all.
const (
	verdictSummaries = 4
	verdictBytes     = 300
)

// Verdict is the outcome of a test run that cmd printed out: the first
// line naming a failing test and the run's summary lines (" | "-joined),
// when a known runner printed them (known); else, when cmd or what it
// printed looks like a test run, its last non-empty line; else "".
func Verdict(cmd, out string) (verdict string, known bool) {
	lines := outputLines(out)
	var summaries []string
	first := ""
	ran := slices.ContainsFunc(lines, unittestRan().MatchString)
	for _, line := range lines {
		switch {
		case matchesAny(summaryLines(), line) || (ran && okLine().MatchString(line)):
			if !slices.Contains(summaries, line) {
				summaries = append(summaries, line)
			}
		case first == "" && matchesAny(firstFailure(), line):
			first = line
		}
	}
	if len(summaries) > 0 {
		parts := keepSummaries(summaries)
		if first != "" {
			parts = append([]string{first}, parts...)
		}
		return termtext.Flatten(strings.Join(parts, " | "), verdictBytes), true
	}
	if len(lines) == 0 || !(testCommand().MatchString(cmd) || testOutput().MatchString(out)) {
		return "", false
	}
	return termtext.Flatten(lines[len(lines)-1], lineBytes), false
}

// keepSummaries is at most verdictSummaries of a run's summary lines, in
// their order: those reporting a failure first, then the last of the
// others (a long run's totals come at its end).
func keepSummaries(all []string) []string {
	if len(all) <= verdictSummaries {
		return all
	}
	keep := make([]bool, len(all))
	n := 0
	for i, s := range all {
		if n < verdictSummaries && failing().MatchString(s) {
			keep[i], n = true, n+1
		}
	}
	for i := len(all) - 1; i >= 0 && n < verdictSummaries; i-- {
		if !keep[i] {
			keep[i], n = true, n+1
		}
	}
	var out []string
	for i, s := range all {
		if keep[i] {
			out = append(out, s)
		}
	}
	return out
}

// outputLines are out's non-empty lines, trimmed, without terminal
// colours; a line rewritten by carriage returns is what it ended as.
func outputLines(out string) []string {
	var lines []string
	for line := range strings.SplitSeq(out, "\n") {
		if i := strings.LastIndexByte(strings.TrimRight(line, "\r"), '\r'); i >= 0 {
			line = line[i+1:]
		}
		// A banner's rule ("==== 1 failed in 0.12s ====") says nothing.
		line = strings.Trim(ansi().ReplaceAllString(line, ""), " \t=")
		if line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

func matchesAny(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}
