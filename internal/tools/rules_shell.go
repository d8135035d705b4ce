package tools

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// A Bash command line is decided on bash's own grammar, parsed by
// mvdan.cc/sh/v3/syntax (the parser of shfmt): every simple command in the
// tree — in lists, pipelines, subshells, blocks, if/for/while/case,
// function bodies, command and process substitutions (inside words,
// assignments, redirections and here-documents too) — is one shellCmd, and
// a rule is held against each of them. What the walk does not model makes
// the line opaque: an allow rule then never covers it (the user is asked)
// and a deny rule always does (fail closed both ways).

// shellLine is a command line as the rules see it.
type shellLine struct {
	cmds []shellCmd
	// opaque says why the walk cannot tell what the line runs ("" when it
	// can): a parse error, a command name that is not a literal, an
	// arithmetic evaluation of a variable (bash evaluates its value, and
	// a subscript in it runs command substitutions), a construct the walk
	// does not know.
	opaque string
}

// shellCmd is one simple command.
type shellCmd struct {
	words []shellWord
	// assigns are its NAME=value prefixes, as literal text ("" for one
	// whose value is not a literal).
	assigns []string
	// writes are its redirections that write a file (`> out`, `>> log`,
	// `&> f`, `<> f`), as "op target"; /dev/null and descriptors are not
	// files.
	writes []string
	// unruled is a command no allow rule names: assignments alone, a
	// declaration, a compound command whose output goes to a file, a
	// write to a file whose name is not a literal.
	unruled bool
	// call and redirs are where it was parsed from, to print an exact rule.
	call   *syntax.CallExpr
	redirs []*syntax.Redirect
	// run is what it runs, read through the program table (analyze).
	run cmdRuns
}

// shellWord is one word of a simple command.
type shellWord struct {
	text    string // the word after quote removal, when literal
	literal bool   // no expansion of any kind: parameter, command, arithmetic, tilde, brace, glob
}

// shellParsers keep parsers (and their buffers) between calls; a Parser
// is reset by each Parse, but not safe for concurrent use.
var shellParsers = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
}}

// parseShell parses a command line and walks it.
func parseShell(cmd string) shellLine {
	if strings.ContainsRune(cmd, '\r') {
		// The parser takes a carriage return for a blank; bash keeps it
		// in the word ("echo\r" is a command of that name to bash).
		return shellLine{opaque: "the command holds a carriage return, which bash and the rules' parser read differently"}
	}
	p := shellParsers.Get().(*syntax.Parser)
	defer shellParsers.Put(p) // after the walk: the tree is the parser's until then
	f, err := p.Parse(strings.NewReader(cmd), "")
	if err != nil {
		return shellLine{opaque: fmt.Sprintf("the command does not parse: %v", err)}
	}
	w := &shellWalker{}
	syntax.Walk(f, w.visit)
	return w.line
}

type shellWalker struct{ line shellLine }

func (w *shellWalker) fail(format string, args ...any) {
	if w.line.opaque == "" {
		w.line.opaque = fmt.Sprintf(format, args...)
	}
}

// visit is called for every node of the tree. Node types it does not
// list make the line opaque.
func (w *shellWalker) visit(n syntax.Node) bool {
	switch n := n.(type) {
	case nil:
	case *syntax.Stmt:
		w.stmt(n)
	case *syntax.Comment:
		// The parser continues a comment that ends in a backslash onto
		// the next line ("a # x \⏎b" is one command "a b" to it); bash
		// ends every comment at the newline and runs b. The parser's
		// reading is then not bash's.
		if strings.Contains(n.Text, "\n") {
			w.fail("a comment ends in a backslash, which bash and the rules' parser read differently")
		}
	case *syntax.Redirect:
		w.heredoc(n)
		w.closeDup(n)
	case *syntax.Assign:
		if n.Name != nil && codeVariable(n.Name.Value) {
			w.fail("the command sets %s, which names code a program runs", n.Name.Value)
		}
	case *syntax.File, *syntax.CallExpr,
		*syntax.Subshell, *syntax.Block, *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause,
		*syntax.WordIter, *syntax.BinaryCmd, *syntax.FuncDecl, *syntax.Word, *syntax.Lit,
		*syntax.SglQuoted, *syntax.DblQuoted, *syntax.CmdSubst, *syntax.CaseClause, *syntax.CaseItem,
		*syntax.ParenTest, *syntax.ArrayExpr, *syntax.ExtGlob, *syntax.ProcSubst, *syntax.TimeClause,
		*syntax.CoprocClause, *syntax.BraceExp, *syntax.DeclClause:
	case *syntax.TestClause, *syntax.UnaryTest, *syntax.BinaryTest:
		w.test(n)
	case *syntax.ParamExp:
		w.param(n)
	case *syntax.ArithmExp:
		w.arithm(n.X)
	case *syntax.ArithmCmd:
		w.arithm(n.X)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			w.arithm(x)
		}
	case *syntax.CStyleLoop:
		w.arithm(n.Init)
		w.arithm(n.Cond)
		w.arithm(n.Post)
	case *syntax.ArrayElem:
		w.arithm(n.Index)
	case *syntax.BinaryArithm, *syntax.UnaryArithm, *syntax.ParenArithm:
		// Reached only below an arithmetic context, already judged.
	default:
		w.fail("the command uses %T, which the permission rules do not model", n)
		return false
	}
	return true
}

// stmt records a statement's simple command, or notes a compound command
// that writes a file.
func (w *shellWalker) stmt(s *syntax.Stmt) {
	writes, dynamic := redirWrites(s.Redirs)
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		w.call(c, s.Redirs, writes, dynamic)
	case *syntax.DeclClause:
		for _, a := range c.Args {
			if a.Index != nil {
				w.arithm(a.Index)
			}
			if a.Naked && a.Name == nil && a.Value != nil {
				// declare -i / -n: integer variables evaluate what is
				// assigned to them, references redirect; a word that is
				// not a literal could be such an option.
				arg := classifyWord(a.Value)
				if !arg.literal || strings.HasPrefix(arg.text, "-") {
					w.fail("%s with options is not modelled", c.Variant.Value)
				}
				// A quoted 'a[$(cmd)]=1' is an assignment to bash, its
				// subscript evaluated.
				if name, _, _ := strings.Cut(arg.text, "="); strings.Contains(name, "[") || codeVariable(name) {
					w.fail("%s is given a variable it evaluates or that names code", c.Variant.Value)
				}
			}
		}
		w.line.cmds = append(w.line.cmds, shellCmd{unruled: true})
	default:
		if len(writes) > 0 || dynamic {
			w.line.cmds = append(w.line.cmds, shellCmd{writes: writes, unruled: true})
		}
	}
}

func (w *shellWalker) call(c *syntax.CallExpr, redirs []*syntax.Redirect, writes []string, dynamicWrite bool) {
	cmd := shellCmd{writes: writes, unruled: dynamicWrite || len(c.Args) == 0, call: c, redirs: redirs}
	for _, a := range c.Assigns {
		if a.Index != nil {
			w.arithm(a.Index)
		}
		cmd.assigns = append(cmd.assigns, assignLiteral(a))
	}
	for _, arg := range c.Args {
		cmd.words = append(cmd.words, classifyWord(arg))
	}
	if len(cmd.words) > 0 && !cmd.words[0].literal {
		w.fail("the command name %q is not a literal word", wordSource(c.Args[0]))
	}
	cmd.run = analyze(cmd.words)
	if cmd.run.undecided != "" {
		w.fail("%s", cmd.run.undecided)
	}
	w.line.cmds = append(w.line.cmds, cmd)
}

// closeDup checks a duplication's word: bash reads "-" right after >& or
// <& as closing the descriptor and goes on with what follows ("-touch"
// is "-" and then the command touch), where the parser takes the whole
// word as the target.
func (w *shellWalker) closeDup(r *syntax.Redirect) {
	if r.Op != syntax.DplOut && r.Op != syntax.DplIn || r.Word == nil || len(r.Word.Parts) == 0 {
		return
	}
	if lit, ok := r.Word.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "-") && (len(lit.Value) > 1 || len(r.Word.Parts) > 1) {
		w.fail("a word after >&- or <&-, which bash and the rules' parser split differently")
	}
}

// heredoc checks that the parser ended a here-document where bash does:
// bash ends it at the first line that is the delimiter, read raw; the
// parser joins a line ending in a backslash with the next first, so after
// "\⏎" it reads on past a delimiter bash stops at. A body in which the
// parser kept a line that is the delimiter was read otherwise than bash.
func (w *shellWalker) heredoc(r *syntax.Redirect) {
	if r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc {
		return
	}
	delim := classifyWord(r.Word)
	if !delim.literal {
		w.fail("a here-document's delimiter is not a literal word")
		return
	}
	if r.Hdoc == nil {
		return
	}
	var body strings.Builder
	for _, p := range r.Hdoc.Parts {
		if lit, ok := p.(*syntax.Lit); ok {
			body.WriteString(lit.Value)
		} else {
			body.WriteByte(0) // an expansion: never part of a delimiter line
		}
	}
	for line := range strings.Lines(body.String()) {
		line = strings.TrimSuffix(line, "\n")
		if r.Op == syntax.DashHdoc {
			line = strings.TrimLeft(line, "\t")
		}
		if line == delim.text {
			w.fail("a here-document's body holds its delimiter: bash and the rules' parser end it at different lines")
			return
		}
	}
}

// param judges a parameter expansion: a name, its length, a default or
// a trimmed value are plain; an indirection (${!x}), a subscript or a
// slice (arithmetic) and the @ transformations (${x@P} runs the prompt's
// command substitutions) are not modelled.
func (w *shellWalker) param(p *syntax.ParamExp) {
	if procSubstAsText(p) {
		w.fail("a process substitution inside ${…} is read as text by the rules' parser, and run by bash")
		return
	}
	switch {
	case p.Excl || p.Names != 0 || p.Flags != nil || p.NestedParam != nil || len(p.Modifiers) > 0:
		w.fail("the parameter expansion %s is not modelled", "${!…}")
	case p.Exp != nil && p.Exp.Op == syntax.OtherParamOps:
		w.fail("the parameter transformation ${…@…} is not modelled")
	case p.Index != nil:
		w.arithm(p.Index)
	case p.Slice != nil:
		w.arithm(p.Slice.Offset)
		w.arithm(p.Slice.Length)
	}
}

// procSubstAsText reports whether a word of p (a default, an alternative,
// a pattern or its replacement) holds "<(" or ">(" as literal text: the
// parser reads it so there, where bash, unquoted, runs the process
// substitution it starts (`echo ${1-<(cmd)}` runs cmd).
func procSubstAsText(p *syntax.ParamExp) bool {
	var words []*syntax.Word
	if p.Exp != nil {
		words = append(words, p.Exp.Word)
	}
	if p.Repl != nil {
		words = append(words, p.Repl.Orig, p.Repl.With)
	}
	found := false
	for _, word := range words {
		if word == nil {
			continue
		}
		syntax.Walk(word, func(n syntax.Node) bool {
			if lit, ok := n.(*syntax.Lit); ok && (strings.Contains(lit.Value, "<(") || strings.Contains(lit.Value, ">(")) {
				found = true
			}
			return !found
		})
	}
	return found
}

// arithm judges an arithmetic context: bash evaluates a variable's value
// as an expression, and a subscript in that value (`a[$(cmd)]`) runs a
// command no walk can see. Numbers and operators alone are harmless.
func (w *shellWalker) arithm(x syntax.ArithmExpr) {
	if x == nil {
		return
	}
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Word:
			if !isNumber(wordLiteral(n)) {
				w.fail("arithmetic on %q is not modelled", wordSource(n))
			}
			return false
		case *syntax.ParamExp:
			w.fail("arithmetic on a variable is not modelled")
			return false
		}
		return true
	})
}

// test judges [[ … ]]: comparisons and file tests are harmless, the
// numeric comparisons evaluate their operands as arithmetic and -v/-R
// evaluate a subscript.
func (w *shellWalker) test(n syntax.Node) {
	switch n := n.(type) {
	case *syntax.UnaryTest:
		if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
			w.fail("[[ %s ]] is not modelled", n.Op)
		}
	case *syntax.BinaryTest:
		switch n.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			for _, x := range []syntax.TestExpr{n.X, n.Y} {
				if wd, ok := x.(*syntax.Word); !ok || !isNumber(wordLiteral(wd)) {
					w.fail("[[ %s ]] on something other than numbers is not modelled", n.Op)
				}
			}
		}
	}
}

func isNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// redirWrites returns the redirections that write a file, as "op target",
// and whether one of them writes to a name that is not a literal.
func redirWrites(redirs []*syntax.Redirect) (writes []string, dynamic bool) {
	for _, r := range redirs {
		target := classifyWord(r.Word)
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
		case syntax.DplOut:
			if target.literal && isDescriptor(target.text) {
				continue
			}
		default:
			continue // reads: <, <&, here-documents and here-strings
		}
		if !target.literal {
			dynamic = true
			continue
		}
		switch target.text {
		case "/dev/null", "/dev/stdout", "/dev/stderr":
			continue
		}
		op := r.Op.String()
		if r.N != nil {
			op = r.N.Value + op
		}
		writes = append(writes, op+" "+target.text)
	}
	return writes, dynamic
}

// isDescriptor is the target of >&: a descriptor (2), a closing (-) or a
// move (3-).
func isDescriptor(s string) bool {
	return s == "-" || isNumber(strings.TrimSuffix(s, "-"))
}

// classifyWord returns a word as bash would see it after quote removal,
// when it is a literal: no parameter, command, arithmetic or process
// expansion, no tilde, brace or glob expansion.
func classifyWord(w *syntax.Word) shellWord {
	if w == nil {
		return shellWord{}
	}
	if len(w.Parts) == 1 {
		// Most words are plain text: nothing to remove or expand.
		if lit, ok := w.Parts[0].(*syntax.Lit); ok && !strings.ContainsAny(lit.Value, "\\*?[{~") {
			return shellWord{text: lit.Value, literal: true}
		}
	}
	if !literalParts(w.Parts, false) {
		return shellWord{}
	}
	if lit, ok := w.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") {
		return shellWord{}
	}
	braces := *w
	braces.Parts = append([]syntax.WordPart(nil), w.Parts...)
	if syntax.SplitBraces(&braces) && slices.ContainsFunc(braces.Parts, func(p syntax.WordPart) bool {
		_, expands := p.(*syntax.BraceExp) // {a,b} and {1..3}; not {} or {a}, which bash keeps as text
		return expands
	}) {
		return shellWord{}
	}
	// A fresh, empty configuration each time: the expander writes to the
	// one it is given (a shared one, nil included, is a data race). The
	// word holds no expansion, so this is bash's quote removal alone
	// ('…', "…", $'…', backslashes).
	fields, err := expand.Fields(&expand.Config{}, w)
	if err != nil || len(fields) != 1 {
		return shellWord{}
	}
	return shellWord{text: fields[0], literal: true}
}

// literalParts reports whether parts hold only quoted text and unquoted
// text without glob characters.
func literalParts(parts []syntax.WordPart, quoted bool) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.SglQuoted:
		case *syntax.DblQuoted:
			if !literalParts(p.Parts, true) {
				return false
			}
		case *syntax.Lit:
			if !quoted && hasUnquotedGlob(p.Value) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// hasUnquotedGlob reports whether unquoted text holds a glob character
// that no backslash escapes.
func hasUnquotedGlob(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// wordLiteral is the word's literal text, or "" when it is not a literal.
func wordLiteral(w *syntax.Word) string {
	if lw := classifyWord(w); lw.literal {
		return lw.text
	}
	return ""
}

// assignLiteral is NAME=value (NAME+=value) with the value after quote
// removal, or "" when the value is not a literal.
func assignLiteral(a *syntax.Assign) string {
	if a.Name == nil || a.Index != nil || a.Array != nil {
		return ""
	}
	op := "="
	if a.Append {
		op = "+="
	}
	value := ""
	if a.Value != nil {
		lw := classifyWord(a.Value)
		if !lw.literal {
			return ""
		}
		value = lw.text
	}
	return a.Name.Value + op + value
}

// wordSource prints a word as it was written, for messages.
func wordSource(w *syntax.Word) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, w); err != nil {
		return "?"
	}
	return b.String()
}
