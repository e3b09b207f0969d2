package cssscan

import (
	"slices"
	"strings"
	"testing"
)

func TestUnquoted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, want string
	}{
		{"no quotes", `a b;c`, `a b;c`},
		{"double quotes", `a"x;y"b`, `ab`},
		{"single quotes", `a'x"y'b`, `ab`},
		{"an escaped quote inside", `a"x\"y"b`, `ab`},
		{"an escaped backslash before the close", `a"x\\"b`, `ab`},
		{"unclosed", `a"x;y`, `a`},
		{"empty", ``, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			for i, c := range Unquoted(tc.in) {
				if tc.in[i] != c {
					t.Fatalf("index %d yields %q, the byte there is %q", i, c, tc.in[i])
				}
				b.WriteByte(c)
			}
			if b.String() != tc.want {
				t.Fatalf("Unquoted(%q) = %q, want %q", tc.in, b.String(), tc.want)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		top      bool
		want     []string
	}{
		{"declarations", `display:none; content:"a;b" ;x`, false, []string{`display:none`, ` content:"a;b" `, `x`}},
		{"parentheses do not hold a split", `a(b;c);d`, false, []string{`a(b`, `c)`, `d`}},
		{"a trailing separator", `a;`, false, []string{`a`, ``}},
		{"selector list", `a, b:is(c, d), [x=","]`, true, []string{`a`, ` b:is(c, d)`, ` [x=","]`}},
		{"nothing to split", `a`, true, []string{`a`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			split := Split
			if tc.top {
				split = SplitTop
			}
			sep := byte(';')
			if tc.top {
				sep = ','
			}
			if got := split(tc.in, sep); !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
