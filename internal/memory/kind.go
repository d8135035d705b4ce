package memory

import (
	"regexp"
	"strings"
)

// A typed memory is of an exclusive kind when it says which command runs
// the tests or builds the project — "Run the tests with `make check`",
// "tests: pytest -x" — so that it and an accepted suggestion of the same
// kind contradict each other, and the newer retires the older (Add,
// Accept). It says so when it mentions the tests (or the build) outside
// its backquotes and names a test runner (or a build command), in
// backquotes or among its words, that its clause does not say not to use
// ("don't run go test", "…, not make test").
var (
	mentionsTests = regexp.MustCompile(`(?i)\btests\b|\btesting\b|\btest (command|suite|runner)s?\b`)
	mentionsBuild = regexp.MustCompile(`(?i)\bbuild(s|ing)?\b|\bcompiles?\b`)
	negated       = regexp.MustCompile(`(?i)\b(don'?t|do not|never|not|avoid|instead of)\b`)
)

// named is a command a memory names and the text before it.
type named struct{ command, before string }

// kindOf is the exclusive kind text states (KindTest, KindBuild), or "".
func kindOf(text string) string {
	var cmds []named
	var prose strings.Builder
	spans := strings.Split(text, "`")
	for i, sp := range spans {
		if i%2 == 1 {
			cmds = append(cmds, named{sp, strings.Join(spans[:i], "`")})
		} else {
			prose.WriteString(sp + " ")
		}
	}
	if len(cmds) == 0 {
		// No backquotes: the command may start at any of its words.
		fields := strings.Fields(text)
		for i := range fields {
			cmds = append(cmds, named{strings.ToLower(strings.Join(fields[i:], " ")), strings.Join(fields[:i], " ")})
		}
	}
	for _, c := range cmds {
		if clause := c.before[strings.LastIndexAny(c.before, ".;!?\n")+1:]; negated.MatchString(clause) {
			continue
		}
		switch classify(strings.Trim(c.command, " .,;:")) {
		case KindTest:
			if mentionsTests.MatchString(prose.String()) {
				return KindTest
			}
		case KindBuild:
			if mentionsBuild.MatchString(prose.String()) {
				return KindBuild
			}
		}
	}
	return ""
}
