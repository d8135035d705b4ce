package tools

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var updateCorpus = flag.Bool("update", false, "rewrite testdata/sandbox-corpus.jsonl from the rule tests' tables and the fuzz corpora")

// sandboxCorpus is the file that holds every command line the permission
// rules were tested with, for the end-to-end test that runs each of them
// inside the sandbox (internal/e2e, TestSandboxContainsEveryBypass).
const sandboxCorpus = "testdata/sandbox-corpus.jsonl"

// corpusLine is one line of sandboxCorpus: a command line and the tests
// that hold the rules to it, each with its rules.
type corpusLine struct {
	Line  string       `json:"line"`
	Under []corpusTest `json:"under"`
}

// corpusTest is a test of a command line and the rules it holds to it.
type corpusTest struct {
	Test  string   `json:"test"`
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// TestSandboxCorpusIsCurrent: testdata/sandbox-corpus.jsonl holds every
// command line of the rule tests' tables, of the fuzz targets' seeds and
// of their corpora (testdata/fuzz), with the rules each was tested under,
// so that the sandbox's end-to-end test runs all of them (issue 32: every
// bypass string, run under the sandbox with the rule that let it through,
// changes nothing outside the project). A table or corpus that grows
// fails this test until `go test ./internal/tools -run
// TestSandboxCorpusIsCurrent -update` rewrites the file.
func TestSandboxCorpusIsCurrent(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, l := range collectCorpus(t) {
		if err := enc.Encode(l); err != nil {
			t.Fatal(err)
		}
	}
	if *updateCorpus {
		if err := os.WriteFile(sandboxCorpus, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(sandboxCorpus)
	if err != nil || !bytes.Equal(have, b.Bytes()) {
		t.Errorf("%s is not current (%v): run go test ./internal/tools -run TestSandboxCorpusIsCurrent -update", sandboxCorpus, err)
	}
}

// collectCorpus gathers the lines in a fixed order, each once.
func collectCorpus(t *testing.T) []*corpusLine {
	var out []*corpusLine
	seen := map[string]*corpusLine{}
	add := func(line string, under corpusTest) {
		if strings.ContainsRune(line, 0) {
			return // no argument can hold it
		}
		l := seen[line]
		if l == nil {
			l = &corpusLine{Line: line}
			seen[line] = l
			out = append(out, l)
		}
		if !slices.ContainsFunc(l.Under, func(u corpusTest) bool {
			return u.Test == under.Test && slices.Equal(u.Allow, under.Allow) && slices.Equal(u.Deny, under.Deny)
		}) {
			l.Under = append(l.Under, under)
		}
	}
	allow := func(test string, rules ...string) corpusTest { return corpusTest{Test: test, Allow: rules} }
	deny := func(test, rule string) corpusTest {
		return corpusTest{Test: test, Allow: []string{"Bash"}, Deny: []string{rule}}
	}
	tokens := corpusTest{Test: "FuzzBashAllowRuleTokens", Allow: []string{"Bash(echo:*)", "Bash"},
		Deny: []string{"Bash(echo:*)", "Bash(touch:*)", "Bash(git push:*)"}}
	for _, s := range bashAllowSeeds {
		add(s, allow("FuzzBashAllowRule", "Bash(echo:*)"))
	}
	for _, s := range tokenSeeds {
		add(tokenLine([]byte(s)), tokens)
	}
	for _, pieces := range tokenSeedLines {
		add(strings.Join(pieces, ""), tokens)
	}
	for _, s := range fuzzCorpus(t, "FuzzBashAllowRule") {
		add(string(s), allow("testdata/fuzz/FuzzBashAllowRule", "Bash(echo:*)"))
	}
	for _, s := range fuzzCorpus(t, "FuzzBashAllowRuleTokens") {
		u := tokens
		u.Test = "testdata/fuzz/FuzzBashAllowRuleTokens"
		add(tokenLine(s), u)
	}
	for _, tt := range allowRuleLines {
		add(tt.cmd, allow("TestAllowRuleCoversOnlyWhatBashRuns", tt.allow))
	}
	for _, tt := range denyRuleLines {
		add(tt.cmd, deny("TestDenyRuleCatchesWhatBashRuns", tt.deny))
	}
	for _, cmd := range sortedKeys(alwaysWithinLines) {
		add(cmd, allow("TestAlwaysStaysWithinWhatWasAsked", splitRules(alwaysWithinLines[cmd])...))
	}
	for _, cmd := range sortedKeys(narrowestRules) {
		add(cmd, allow("TestAlwaysGrantsTheNarrowestRule", splitRules(narrowestRules[cmd])...))
	}
	for _, tt := range seeThroughAllows {
		add(tt.cmd, allow("TestAllowRulesSeeThroughGlobalOptions", tt.allow))
	}
	for _, tt := range seeThroughDenies {
		add(tt.cmd, deny("TestDenyRulesSeeThroughGlobalOptions", tt.deny))
	}
	for _, cmd := range slices.Concat(runsAString, decidedLines) {
		add(cmd, deny("TestRunningAStringIsUndecided", "Bash(rm:*)"))
	}
	for _, tt := range sedScripts {
		add("sed "+shellQuote(tt.script)+" f", allow("TestSedCode", "Bash(sed:*)"))
	}
	return out
}

// tokenLine is the command line FuzzBashAllowRuleTokens builds of picks.
func tokenLine(picks []byte) string {
	var b strings.Builder
	for _, p := range picks {
		b.WriteString(shellPieces[int(p)%len(shellPieces)])
	}
	return b.String()
}

// fuzzCorpus reads the inputs of a fuzz target's corpus in testdata/fuzz
// (the one-argument "go test fuzz v1" files), in the order of their names.
func fuzzCorpus(t *testing.T, target string) [][]byte {
	t.Helper()
	dir := filepath.Join("testdata", "fuzz", target)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) != 2 || lines[0] != "go test fuzz v1" {
			t.Fatalf("%s/%s: not a one-argument fuzz input", dir, e.Name())
		}
		arg := lines[1]
		for _, kind := range []string{"string(", "[]byte("} {
			arg = strings.TrimPrefix(arg, kind)
		}
		s, err := strconv.Unquote(strings.TrimSuffix(arg, ")"))
		if err != nil {
			t.Fatalf("%s/%s: %v", dir, e.Name(), err)
		}
		out = append(out, []byte(s))
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// shellQuote quotes s as one word for bash.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
