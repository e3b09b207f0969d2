// Package cssscan reads CSS source text (declarations, selectors) byte by
// byte outside its quoted strings, for the small CSS readers of the
// module: the plain-file style sheet of engine/observe and the selector
// cost check of engine/adapter. A quoted string is '…' or "…", in which a
// backslash escapes the byte after it; an unclosed string runs to the end.
package cssscan

import "iter"

// Unquoted yields the index and value of every byte of s outside quoted
// strings; the quote marks themselves are not yielded.
func Unquoted(s string) iter.Seq2[int, byte] {
	return func(yield func(int, byte) bool) {
		var quote byte
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case quote != 0:
				if c == '\\' {
					i++
				} else if c == quote {
					quote = 0
				}
			case c == '"' || c == '\'':
				quote = c
			default:
				if !yield(i, c) {
					return
				}
			}
		}
	}
}

// Split splits s on sep outside quoted strings.
func Split(s string, sep byte) []string {
	var out []string
	start := 0
	for i, c := range Unquoted(s) {
		if c == sep {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// SplitTop splits s on sep outside quoted strings and parentheses.
func SplitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range Unquoted(s) {
		switch {
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
