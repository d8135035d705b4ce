// Package harness is what the tests that drive the real clawdcode binary
// share: building it from the module under test (Build, BuildBinary, and
// Main for a TestMain), an isolated user to run it as (World: its own
// HOME, CLAWDCODE_HOME, project and fake server), running it to completion
// under a deadline with its output and exit status collected (Run, Wait),
// and the parts of the result object and session records the tests read.
//
// It is a normal package only so that test packages in different
// directories (internal/e2e, internal/e2e/ctxwindow, internal/repl,
// internal/perf) can import it; nothing but tests uses it, and the
// clawdcode binary never links it.
//
// Everything here is safe for concurrent use: the only state is the path
// of the binary Main built, written before any test starts; each build or
// run is its own process; a World is its test's, and runs through it may
// be concurrent as long as its fields stay put.
package harness
