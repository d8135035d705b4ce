package tools

import (
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
)

// Rule is one permission rule (CONTRACT.md §7): `Tool` for every call of a
// tool, or `Tool(specifier)`:
//
//	Bash(npm test)      exactly that command
//	Bash(git diff:*)    "git diff" alone or followed by a space and arguments
//	Edit(src/**)        a path glob (`*`, `?`, `[...]` in one segment, `**`
//	Write(docs/*.md)    across segments, `{a,b}`), relative to the project
//	Read(/etc/**)       root, or absolute
//	WebFetch(domain:example.com)  a URL whose host is exactly example.com
//	                    (any scheme and port; not its subdomains, which are
//	                    other hosts: www.example.com needs its own rule)
//
// `Tool(*)` and `Tool()` are `Tool`. Tool names are matched without regard to
// case. A Bash rule's command is read with bash's grammar: its words after
// quote removal are what is compared, on word boundaries. A Bash command
// line is parsed the same way (see rules_command.go): an allow rule covers it
// only if every simple command in it is covered, and a deny rule if any
// could be its command; what the parse cannot decide is never allowed by a
// Bash rule and always denied by one.
//
// The zero Rule matches nothing. Rules are comparable values.
type Rule struct {
	tool    string // canonical name ("Bash"), or the name as given for tools clawdcode does not know yet (MCP)
	command string // Bash: the exact command or the prefix, as written
	prefix  bool   // Bash: command is a prefix
	words   string // Bash: the command's words after quote removal, NUL-separated
	key     string // Bash, exact: the canonical command (cmdKey)
	glob    string // Edit/Write/Read: the path pattern as written
	domain  string // WebFetch: the host, lower case
}

// ruleTools are the tools a rule may name: the contract's, in the order
// the engine offers them (Set, then Recall, then Task).
var ruleTools = []string{NameRead, NameWrite, NameEdit, NameBash, NameGlob, NameGrep,
	NameBashOutput, NameKillShell, NameWebFetch, NameRecall, NameTask}

// RuleTools are the tool names rules accept (MCP tools aside), for hints.
func RuleTools() []string { return slices.Clone(ruleTools) }

// ParseRule reads one rule. Unknown tool names are an error, except MCP tool
// names (mcp__<server>__<tool>), which are accepted as whole-tool rules.
func ParseRule(spec string) (Rule, error) {
	spec = strings.TrimSpace(spec)
	name, arg, hasArg := strings.Cut(spec, "(")
	name = strings.TrimSpace(name)
	if name == "" {
		return Rule{}, fmt.Errorf("invalid rule %q: no tool name", spec)
	}
	r := Rule{tool: canonicalTool(name)}
	if r.tool == "" {
		if !strings.HasPrefix(strings.ToLower(name), "mcp__") || hasArg || strings.ContainsAny(name, " \t,)") {
			if spec == name {
				return Rule{}, fmt.Errorf("%w %q", ErrUnknownTool, name)
			}
			return Rule{}, fmt.Errorf("%w %q in rule %q", ErrUnknownTool, name, spec)
		}
		r.tool = name
		return r, nil
	}
	if !hasArg {
		return r, nil
	}
	if !strings.HasSuffix(arg, ")") {
		return Rule{}, fmt.Errorf("invalid rule %q: missing closing parenthesis", spec)
	}
	arg = strings.TrimSpace(strings.TrimSuffix(arg, ")"))
	if arg == "" || arg == "*" {
		return r, nil
	}
	switch r.tool {
	case NameBash:
		if cmd, ok := strings.CutSuffix(arg, ":*"); ok {
			if cmd = strings.TrimSpace(cmd); cmd == "" {
				return Rule{}, fmt.Errorf("invalid rule %q: empty command prefix", spec)
			}
			r.command, r.prefix = cmd, true
		} else {
			r.command = arg
		}
		words, key, err := parseBashSpec(r.command, r.prefix)
		if err != nil {
			return Rule{}, fmt.Errorf("invalid rule %q: %w", spec, err)
		}
		r.words, r.key = words, key
	case NameEdit, NameWrite, NameRead:
		if _, err := compileGlob(strings.TrimPrefix(filepath.ToSlash(arg), "/")); err != nil {
			return Rule{}, fmt.Errorf("invalid rule %q: %v", spec, err)
		}
		r.glob = filepath.ToSlash(arg)
	case NameWebFetch:
		host, err := parseDomain(arg)
		if err != nil {
			return Rule{}, fmt.Errorf("invalid rule %q: %v", spec, err)
		}
		r.domain = host
	default:
		return Rule{}, fmt.Errorf("invalid rule %q: %s takes no specifier", spec, r.tool)
	}
	return r, nil
}

// ParseRules reads a list of rules separated by commas or spaces outside
// parentheses ("Bash(go test:*),Edit Write"), as --allowed-tools and
// --disallowed-tools take them.
func ParseRules(list string) ([]Rule, error) {
	var out []Rule
	for _, spec := range splitRules(list) {
		r, err := ParseRule(spec)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// canonicalTool returns the contract name of a tool named without regard to
// case, or "".
func canonicalTool(name string) string {
	for _, t := range ruleTools {
		if strings.EqualFold(t, name) {
			return t
		}
	}
	return ""
}

// String is the rule as it is written, e.g. "Bash(git diff:*)".
func (r Rule) String() string {
	switch {
	case r.prefix:
		return r.tool + "(" + r.command + ":*)"
	case r.command != "":
		return r.tool + "(" + r.command + ")"
	case r.glob != "":
		return r.tool + "(" + r.glob + ")"
	case strings.Contains(r.domain, ":"): // IPv6, bracketed as in a URL
		return r.tool + "(domain:[" + r.domain + "])"
	case r.domain != "":
		return r.tool + "(domain:" + r.domain + ")"
	}
	return r.tool
}

// IsZero reports whether r is the zero Rule.
func (r Rule) IsZero() bool { return r.tool == "" }

// wholeTool reports whether r covers every call of its tool.
func (r Rule) wholeTool() bool { return r.command == "" && r.glob == "" && r.domain == "" }

// UnmarshalText lets a configuration file hold rules directly, so a bad
// rule is reported where it is written.
func (r *Rule) UnmarshalText(b []byte) error {
	parsed, err := ParseRule(string(b))
	if err != nil {
		return err
	}
	*r = parsed
	return nil
}

// splitRules splits on commas and spaces outside parentheses, so
// "Bash(go test:*),Edit" and "Bash(go test:*) Edit" both give two rules.
func splitRules(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch s[i] {
			case '(':
				depth++
				continue
			case ')':
				depth = max(0, depth-1)
				continue
			case ',', ' ', '\t':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		if part := strings.TrimSpace(s[start:i]); part != "" {
			out = append(out, part)
		}
		start = i + 1
	}
	return out
}

// call is what rules are matched against: a tool call with the parts its
// specifiers look at.
type callInfo struct {
	tool    string     // canonical name
	line    *shellLine // Bash: the command as parsed (nil when none was given)
	target  string     // Edit/Write/Read: the real path the call touches ("" = none given)
	rel     string     // target relative to the root, slash-separated; "" when outside it
	outside bool       // target is outside the project root
	host    string     // WebFetch: the URL's host, lower case ("" = no valid URL)
}

// newCall decodes what rules need from a call's input. Bad input leaves the
// fields empty: specifier rules then do not match, whole-tool rules still do.
func newCall(root string, tool Tool, input json.RawMessage) callInfo {
	c := callInfo{tool: tool.Name()}
	if canon := canonicalTool(c.tool); canon != "" {
		c.tool = canon
	}
	a, err := parseArgs(input)
	if err != nil {
		return c
	}
	switch c.tool {
	case NameBash:
		if cmd, err := a.requiredString("command"); err == nil {
			line := parseShell(cmd)
			c.line = &line
		}
	case NameEdit, NameWrite, NameRead:
		if p, err := a.requiredText("file_path"); err == nil {
			c.target = resolveTarget(root, p)
			c.rel, c.outside = relativeTo(root, c.target)
		}
	case NameGrep, NameGlob:
		// What a search reads or lists is under its path (the root by
		// default): a Read deny rule that covers the path denies it.
		p := ""
		if v := a.raw("path"); v != nil {
			if p, err = a.decodeString("path", v); err != nil {
				return c
			}
		}
		if p != "" || root != "" {
			c.target = resolveTarget(root, p)
			c.rel, c.outside = relativeTo(root, c.target)
		}
	case NameWebFetch:
		if raw, err := a.requiredString("url"); err == nil {
			if u, err := parseWebURL(raw); err == nil {
				c.host = strings.ToLower(u.Hostname())
			}
		}
	}
	return c
}

// undecided says, for a Bash command line the parse cannot decide, why
// (" (…)", for a denial); "" otherwise.
func (c callInfo) undecided() string {
	if c.line == nil || c.line.opaque == "" {
		return ""
	}
	return " (" + c.line.opaque + ")"
}

// allows reports whether allow rule r covers the whole call: for Bash every
// simple command of a command line the parse can decide.
func (r Rule) allows(c callInfo) bool {
	if matched, decided := r.matchesPlain(c); decided {
		return matched
	}
	return c.line != nil && c.line.opaque == "" && len(c.line.cmds) > 0 &&
		!slices.ContainsFunc(c.line.cmds, func(cmd shellCmd) bool { return !r.allowsCmd(cmd) })
}

// matchesPlain is what allow and deny rules decide alike: another tool's
// call is not the rule's, and a whole-tool, path or domain rule matches by
// itself. decided is false for a command rule, which allows and denies
// read through the parsed command line each its own way.
func (r Rule) matchesPlain(c callInfo) (matched, decided bool) {
	switch {
	case !strings.EqualFold(r.tool, c.tool):
		return false, true
	case r.wholeTool():
		return true, true
	case r.glob != "":
		return r.matchesPath(c), true
	case r.domain != "":
		return c.host != "" && c.host == r.domain, true
	}
	return false, false
}

// denies reports whether deny rule r covers any of the call: for Bash a
// command line the parse cannot decide, or any simple command in it that
// could be the rule's, looked at through wrappers and command strings. A
// path denied to one tool is denied to every tool that reads or writes
// it (sharesPaths).
func (r Rule) denies(c callInfo) bool {
	if r.sharesPaths(c.tool) {
		return r.wholeTool() || r.glob != "" && r.matchesPath(c)
	}
	if matched, decided := r.matchesPlain(c); decided {
		return matched
	}
	return c.line != nil && r.deniesLine(*c.line)
}

// sharesPaths reports whether a deny rule of r's tool covers the paths
// another tool touches: what Read may not read, Grep may not search and
// Glob may not list, and Edit (which reads a file to change it) may not
// change; what Edit or Write may not write, the other may not either.
func (r Rule) sharesPaths(tool string) bool {
	if strings.EqualFold(r.tool, tool) {
		return false
	}
	switch r.tool {
	case NameRead:
		return tool == NameGrep || tool == NameGlob || tool == NameEdit
	case NameEdit, NameWrite:
		return tool == NameEdit || tool == NameWrite
	}
	return false
}

// matchesPath matches a path rule: a relative pattern against the target
// relative to the root (so never outside it), an absolute one against the
// absolute target.
func (r Rule) matchesPath(c callInfo) bool {
	if c.target == "" {
		return false
	}
	pattern, subject := r.glob, c.rel
	if strings.HasPrefix(pattern, "/") {
		pattern, subject = strings.TrimPrefix(pattern, "/"), strings.TrimPrefix(filepath.ToSlash(c.target), "/")
	} else if c.outside {
		return false
	}
	g, err := compileGlob(pattern)
	if err != nil {
		return false
	}
	return g.match(subject)
}

// parseDomain reads a WebFetch rule's specifier, "domain:<host>": a host
// name or IP address alone, matched exactly (no wildcard, scheme, port or
// path).
func parseDomain(arg string) (string, error) {
	host, ok := strings.CutPrefix(arg, "domain:")
	host = strings.ToLower(strings.TrimSpace(host))
	switch {
	case !ok:
		return "", fmt.Errorf("WebFetch takes domain:<host>, e.g. WebFetch(domain:example.com)")
	case host == "":
		return "", fmt.Errorf("empty domain")
	case strings.ContainsAny(host, "*/?#@ \t") || strings.Contains(host, "://"):
		return "", fmt.Errorf("domain %q: give the host alone, exactly (no scheme, path or wildcard)", host)
	}
	// An IPv6 address may come bracketed, as in a URL; Hostname() is not.
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.Contains(host, ":") && net.ParseIP(host) == nil {
		return "", fmt.Errorf("domain %q: give the host without a port", host)
	}
	return host, nil
}
