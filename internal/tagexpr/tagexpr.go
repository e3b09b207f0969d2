// Package tagexpr parses and evaluates Cucumber tag expressions: tags
// combined with `not`, `and`, `or` and parentheses, `\` escaping a
// parenthesis, a backslash or white space inside a tag
// (`@wip and not (@slow or @flaky)`).
//
// The parser is an operator-precedence (shunting-yard) parser in the manner
// of cucumber/tag-expressions, and is held to that project's shared test
// data (testdata/parsing.yml, evaluations.yml, errors.yml), including its
// error messages word for word. godog's older forms are still read:
// `~@x` is `not @x`, `&&` is `and`, a comma or `||` is `or`, with godog's
// grouping (`@a,@b && @c` is `(@a or @b) and @c`).
package tagexpr

import (
	"errors"
	"regexp"
	"strings"
	"unicode"
)

// ErrSyntax is what every parse error wraps; the error itself is a
// *SyntaxError carrying the official message.
var ErrSyntax = errors.New("tagexpr: syntax error")

// SyntaxError is an expression that does not parse.
type SyntaxError struct {
	Expr   string // the expression as given
	Reason string // e.g. "Expected operand."
}

// Error is the message Cucumber's implementations print, word for word.
func (e *SyntaxError) Error() string {
	return `Tag expression "` + e.Expr + `" could not be parsed because of syntax error: ` + e.Reason
}

// Unwrap lets errors.Is(err, ErrSyntax) hold.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// Expr is a parsed tag expression. The zero value matches everything.
type Expr struct{ root node }

// Match reports whether a scenario with these tags (with their @) is
// selected.
func (e Expr) Match(tags []string) bool {
	if e.root == nil {
		return true
	}
	return e.root.eval(tags)
}

// String is the canonical, fully parenthesised form ("( a and b )"); the
// empty expression is "".
func (e Expr) String() string {
	if e.root == nil {
		return ""
	}
	return e.root.String()
}

// Parse reads a tag expression. An empty or all-space expression matches
// every scenario.
func Parse(expr string) (Expr, error) {
	src := expr
	if isLegacy(expr) {
		src = translateLegacy(expr)
	}
	toks, reason := tokenize(src)
	if reason != "" {
		return Expr{}, &SyntaxError{Expr: expr, Reason: reason}
	}
	root, reason := build(toks)
	if reason != "" {
		return Expr{}, &SyntaxError{Expr: expr, Reason: reason}
	}
	return Expr{root: root}, nil
}

// MustParse is Parse for expressions known to be valid; it panics on a
// syntax error.
func MustParse(expr string) Expr {
	e, err := Parse(expr)
	if err != nil {
		panic(err)
	}
	return e
}

type kind int

const (
	literal kind = iota
	opOr
	opAnd
	opNot
	lparen
	rparen
)

// precedence of the operators; parentheses are not operators.
var precedence = map[kind]int{opOr: 0, opAnd: 1, opNot: 2}

type token struct {
	kind kind
	text string // the literal's value, escapes removed
}

// tokenize splits on unescaped white space and parentheses.
func tokenize(s string) ([]token, string) {
	var toks []token
	var cur strings.Builder
	inTok, escaped := false, false
	flush := func() {
		if !inTok {
			return
		}
		t := token{kind: literal, text: cur.String()}
		switch t.text {
		case "and":
			t.kind = opAnd
		case "or":
			t.kind = opOr
		case "not":
			t.kind = opNot
		}
		toks = append(toks, t)
		cur.Reset()
		inTok = false
	}
	for _, c := range s {
		switch {
		case escaped:
			if c != '(' && c != ')' && c != '\\' && !unicode.IsSpace(c) {
				return nil, `Illegal escape before "` + string(c) + `".`
			}
			cur.WriteRune(c)
			inTok, escaped = true, false
		case c == '\\':
			escaped = true
			inTok = true
		case c == '(' || c == ')':
			flush()
			if c == '(' {
				toks = append(toks, token{kind: lparen})
			} else {
				toks = append(toks, token{kind: rparen})
			}
		case unicode.IsSpace(c):
			flush()
		default:
			cur.WriteRune(c)
			inTok = true
		}
	}
	if escaped {
		// a trailing backslash escapes nothing
		return nil, `Illegal escape before "".`
	}
	flush()
	return toks, ""
}

// build runs the shunting-yard algorithm over the tokens, producing the
// tree directly. It returns the reason of a syntax error, or "".
func build(toks []token) (node, string) {
	if len(toks) == 0 {
		return nil, ""
	}
	var out []node
	var ops []kind
	wantOperand := true
	reduce := func(op kind) string {
		switch op {
		case opNot:
			if len(out) < 1 {
				return "Expected operand."
			}
			out[len(out)-1] = notNode{out[len(out)-1]}
		case opAnd, opOr:
			if len(out) < 2 {
				return "Expected operand."
			}
			l, r := out[len(out)-2], out[len(out)-1]
			out = out[:len(out)-2]
			if op == opAnd {
				out = append(out, andNode{l, r})
			} else {
				out = append(out, orNode{l, r})
			}
		}
		return ""
	}
	expect := func(operand bool) string {
		if wantOperand != operand {
			if wantOperand {
				return "Expected operand."
			}
			return "Expected operator."
		}
		return ""
	}
	for _, t := range toks {
		switch t.kind {
		case opNot, lparen:
			if r := expect(true); r != "" {
				return nil, r
			}
			ops = append(ops, t.kind)
		case opAnd, opOr:
			if r := expect(false); r != "" {
				return nil, r
			}
			// both binary operators are left-associative
			for len(ops) > 0 && ops[len(ops)-1] != lparen && precedence[t.kind] <= precedence[ops[len(ops)-1]] {
				if r := reduce(ops[len(ops)-1]); r != "" {
					return nil, r
				}
				ops = ops[:len(ops)-1]
			}
			ops = append(ops, t.kind)
			wantOperand = true
		case rparen:
			if r := expect(false); r != "" {
				return nil, r
			}
			for len(ops) > 0 && ops[len(ops)-1] != lparen {
				if r := reduce(ops[len(ops)-1]); r != "" {
					return nil, r
				}
				ops = ops[:len(ops)-1]
			}
			if len(ops) == 0 {
				return nil, "Unmatched )."
			}
			ops = ops[:len(ops)-1]
		case literal:
			if r := expect(true); r != "" {
				return nil, r
			}
			out = append(out, literalNode(t.text))
			wantOperand = false
		}
	}
	if wantOperand {
		return nil, "Expected operand."
	}
	for len(ops) > 0 {
		op := ops[len(ops)-1]
		ops = ops[:len(ops)-1]
		if op == lparen {
			return nil, "Unmatched (."
		}
		if r := reduce(op); r != "" {
			return nil, r
		}
	}
	if len(out) != 1 {
		return nil, "Expected operator."
	}
	return out[0], ""
}

type node interface {
	eval(tags []string) bool
	String() string
}

type literalNode string

func (l literalNode) eval(tags []string) bool {
	for _, t := range tags {
		if t == string(l) {
			return true
		}
	}
	return false
}

func (l literalNode) String() string {
	var b strings.Builder
	for _, c := range string(l) {
		if c == '\\' || c == '(' || c == ')' || unicode.IsSpace(c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

type notNode struct{ x node }

func (n notNode) eval(tags []string) bool { return !n.x.eval(tags) }

func (n notNode) String() string {
	switch n.x.(type) {
	case andNode, orNode:
		return "not " + n.x.String() // already parenthesised
	}
	return "not ( " + n.x.String() + " )"
}

type andNode struct{ l, r node }

func (a andNode) eval(tags []string) bool { return a.l.eval(tags) && a.r.eval(tags) }
func (a andNode) String() string          { return "( " + a.l.String() + " and " + a.r.String() + " )" }

type orNode struct{ l, r node }

func (o orNode) eval(tags []string) bool { return o.l.eval(tags) || o.r.eval(tags) }
func (o orNode) String() string          { return "( " + o.l.String() + " or " + o.r.String() + " )" }

// isLegacy reports whether expr uses godog's old operators: `&&`, `||`, a
// comma, or a tag negated with `~`.
func isLegacy(expr string) bool {
	if strings.Contains(expr, "&&") || strings.Contains(expr, "||") || strings.Contains(expr, ",") {
		return true
	}
	for _, f := range strings.FieldsFunc(expr, func(r rune) bool { return unicode.IsSpace(r) || r == '(' }) {
		if strings.HasPrefix(f, "~") {
			return true
		}
	}
	return false
}

// translateLegacy rewrites godog's old form into the standard one with
// godog's grouping: `&&` separates groups that must all hold, and inside a
// group a comma or `||` separates alternatives. An empty group or
// alternative stays empty, so the standard parser reports the missing
// operand.
func translateLegacy(expr string) string {
	expr = negation.ReplaceAllString(expr, "${1}not ")
	var groups []string
	for _, g := range strings.Split(expr, "&&") {
		var alts []string
		for _, a := range strings.Split(strings.ReplaceAll(g, "||", ","), ",") {
			alts = append(alts, "( "+strings.TrimSpace(a)+" )")
		}
		groups = append(groups, "( "+strings.Join(alts, " or ")+" )")
	}
	return strings.Join(groups, " and ")
}

// negation is godog's `~` at the start of a tag.
var negation = regexp.MustCompile(`(^|[\s(,&|])~`)

// Tags lists the tags the expression names (its operands), each once, in
// the order they appear.
func (e Expr) Tags() []string {
	var out []string
	seen := map[string]bool{}
	var walk func(n node)
	walk = func(n node) {
		switch x := n.(type) {
		case literalNode:
			if !seen[string(x)] {
				seen[string(x)] = true
				out = append(out, string(x))
			}
		case notNode:
			walk(x.x)
		case andNode:
			walk(x.l)
			walk(x.r)
		case orNode:
			walk(x.l)
			walk(x.r)
		}
	}
	if e.root != nil {
		walk(e.root)
	}
	return out
}
