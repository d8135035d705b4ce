// Package e2e holds clawdcode's end-to-end fault and security tests. They
// build the real binary once (TestMain) and drive it as a user or a script
// would — separate processes, real files, signals — against the in-repo
// chat-completions server (internal/llmtest), which rejects any request the
// real API would reject.
//
// What the tests establish, each against CONTRACT.md:
//
//   - A SIGKILL at any moment (mid-append, mid-compaction) loses no
//     complete record, leaves a file that loads with at most a warning for
//     a torn last line, and `-c` continues with a request the strict server
//     accepts.
//   - Two processes on one session: the second is refused with a clear
//     error, and the file has no interleaved or lost lines.
//   - A write error (file-size limit) and server faults (429, 500, cut
//     streams, malformed tool arguments, hangs, 401) end in a retry that
//     succeeds or a clear one-line error, never a corrupt session.
//   - Bad input (unknown, ambiguous or path-like ids, garbage session files,
//     an unusable CLAWDCODE_HOME, odd project paths) gets a clear message
//     and the contract's exit code, and nothing is written outside
//     CLAWDCODE_HOME and the project.
//   - Files are 0600 and directories 0700, the API key never reaches disk,
//     and Write/Edit/Bash never run unallowed under -p.
//
// Every wait has a deadline; the package holds no state between tests
// except the built binary. Kill points come from a PRNG with a fixed seed
// (killSeed in kill_test.go), so a run explores the same points each time.
//
// A few tests show bugs reported in other packages; they skip with a
// "BUG: …" message unless E2E_KNOWN_BUGS=1, so the suite stays green while
// the fix is routed and the failing check is one variable away:
//
//	E2E_KNOWN_BUGS=1 go test -run 'TestServerThatHangsTimesOut' ./internal/e2e/
package e2e
