package observe_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/internal/chatpage"
)

// sameTree parses src with the fast tree builder and with html.Parse and
// fails unless the trees are identical: node for node the same type, data,
// atom, namespace and attributes (in order), and the same rendering. It
// returns whether the fast builder took the page (false: it fell back).
func sameTree(t testing.TB, name, src string) bool {
	t.Helper()
	want, err := html.Parse(strings.NewReader(src))
	got, ok := observe.FastParse(src)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("%s: the fast builder took a page html.Parse refuses (%v)", name, err)
	}
	if diff := treeDiff(got, want); diff != "" {
		t.Fatalf("%s: fast tree differs from html.Parse's: %s\ninput: %.400q", name, diff, src)
	}
	var a, b strings.Builder
	if err := html.Render(&a, got); err != nil {
		t.Fatal(err)
	}
	if err := html.Render(&b, want); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatalf("%s: renderings differ", name)
	}
	return true
}

// treeDiff walks both trees in document order and describes the first
// difference ("" when none).
func treeDiff(got, want *html.Node) string {
	type pair struct{ g, w *html.Node }
	stack := []pair{{got, want}}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		g, w := p.g, p.w
		if (g == nil) != (w == nil) {
			return fmt.Sprintf("node presence: got %v, want %v", describe(g), describe(w))
		}
		if g == nil {
			continue
		}
		if g.Type != w.Type || g.Data != w.Data || g.DataAtom != w.DataAtom || g.Namespace != w.Namespace {
			return fmt.Sprintf("got %s, want %s", describe(g), describe(w))
		}
		if len(g.Attr) != len(w.Attr) || (g.Attr == nil) != (w.Attr == nil) {
			return fmt.Sprintf("%s: attributes %v, want %v", describe(w), g.Attr, w.Attr)
		}
		for i := range g.Attr {
			if g.Attr[i] != w.Attr[i] {
				return fmt.Sprintf("%s: attribute %d %+v, want %+v", describe(w), i, g.Attr[i], w.Attr[i])
			}
		}
		if (g.Parent == nil) != (w.Parent == nil) {
			return fmt.Sprintf("%s: parent presence differs", describe(w))
		}
		gc, wc := g.FirstChild, w.FirstChild
		var kids []pair
		for gc != nil || wc != nil {
			kids = append(kids, pair{gc, wc})
			if gc != nil {
				if gc.Parent != g {
					return fmt.Sprintf("%s: child's parent pointer is wrong", describe(gc))
				}
				gc = gc.NextSibling
			}
			if wc != nil {
				wc = wc.NextSibling
			}
		}
		if g.LastChild != nil && g.LastChild.NextSibling != nil {
			return fmt.Sprintf("%s: last child has a next sibling", describe(g))
		}
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
	return ""
}

func describe(n *html.Node) string {
	if n == nil {
		return "<nil>"
	}
	return fmt.Sprintf("{type %d %q atom %v ns %q}", n.Type, n.Data, n.DataAtom, n.Namespace)
}

func TestFastParseChatPages(t *testing.T) {
	t.Parallel()
	sizes := chatpage.Sizes
	if testing.Short() {
		sizes = sizes[:3]
	}
	for _, n := range sizes {
		for _, seed := range []int64{1, 2, 3} {
			name := fmt.Sprintf("chat%d seed %d", n, seed)
			if n == 20000 && seed > 1 {
				continue
			}
			if !sameTree(t, name, chatpage.Render(chatpage.Options{Turns: n, Seed: seed})) {
				t.Errorf("%s: the fast builder fell back to html.Parse on a seeded chat page", name)
			}
		}
	}
}

// TestFastParseRecordings compares the trees of every frame of every
// capture in recordings/ (the pages replay parses).
func TestFastParseRecordings(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "recordings", "sessions", "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded sessions: %v", err)
	}
	fast, all := 0, 0
	for _, path := range files {
		s, err := replay.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		for ci, c := range s.Captures {
			for _, f := range c.Frames {
				all++
				if sameTree(t, fmt.Sprintf("%s capture %d frame %s", path, ci, f.ID), f.HTML) {
					fast++
				}
			}
		}
	}
	t.Logf("%d frames of %d sessions: %d built fast, %d by html.Parse", all, len(files), fast, all-fast)
	if fast*2 < all {
		t.Errorf("the fast builder took only %d of %d recorded frames", fast, all)
	}
}

// TestFastParseConformancePages compares the trees of the WPT accname
// pages and every other HTML file under testdata.
func TestFastParseConformancePages(t *testing.T) {
	t.Parallel()
	var files []string
	for _, root := range []string{"testdata", filepath.Join("..", "..", "testsite"), filepath.Join("..", "..", "sim")} {
		_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".html") || strings.HasSuffix(path, ".htm")) {
				files = append(files, path)
			}
			return nil
		})
	}
	if len(files) < 9 {
		t.Fatalf("found only %d HTML files", len(files))
	}
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sameTree(t, path, string(src))
	}
}

// TestFastParseRows names the forms the fast builder takes and the ones it
// leaves to html.Parse; every row is also compared tree for tree.
func TestFastParseRows(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src string
		fast      bool
	}{
		{"document", `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>T &amp; U</title></head><body><p>x</p></body></html>`, true},
		{"no doctype", `<html><head></head><body>x</body></html>`, true},
		{"white space around head and body", "<!doctype html>\n<html>\n<head>\n</head>\n<body>\n<p>a</p>\n</body>\n</html>\n", true},
		{"comments everywhere", `<!--a--><!DOCTYPE html><!--b--><html><!--c--><head><!--d--></head><!--e--><body><!--f--></body><!--g--></html><!--h-->`, true},
		{"entities in text and attributes", `<html><head></head><body><a href="/x?a=1&amp;b=2" title="&lt;&#65;&#x42;&quot;">a &amp; b &lt; c &copy; &notin; &amp</a></body></html>`, true},
		{"attribute entity without semicolon", `<html><head></head><body><a href="/x?a=1&b=2">a</a></body></html>`, false},
		{"unquoted and empty attributes", `<html><head></head><body><input type=checkbox checked disabled=""><div a= b=>x</div></body></html>`, true},
		{"duplicate attributes", `<html><head></head><body><div id=a ID=b class=c>x</div></body></html>`, true},
		{"upper-case names", `<HTML><HEAD></HEAD><BODY><DIV CLASS=x><My-El>y</My-El></DIV></BODY></HTML>`, true},
		{"self-closing forms", `<html><head></head><body><br/><img src=a/><div/>x</div><svg><path d="M0 0"/></svg></body></html>`, true},
		{"formatting attributes sorted", `<html><head></head><body><a title="t" href="/h" class="c">x</a><b id=z class=y>b</b></body></html>`, true},
		{"implied tbody", `<html><head></head><body><table><tr><th>a</th></tr><tr><td>1</td></tr></table></body></html>`, true},
		{"table sections and white space", "<html><head></head><body><table>\n<thead><tr><th>a</th></tr></thead>\n<tbody>\n<tr>\n<td>1</td>\n</tr>\n</tbody>\n</table></body></html>", true},
		{"nested table", `<html><head></head><body><table><tr><td><table><tr><td>x</td></tr></table></td></tr></table><p>after</p></body></html>`, true},
		{"svg with adjusted names", `<html><head></head><body><svg viewBox="0 0 1 1" xmlns="http://www.w3.org/2000/svg"><clipPath id=c></clipPath><use xlink:href="#c"/><title>t</title></svg></body></html>`, true},
		{"pre and textarea first newline", "<html><head></head><body><pre>\nx</pre><pre>\n\ny</pre><textarea>\nz</textarea><listing>\nl</listing></body></html>", true},
		{"raw text", `<html><head><style>a<b>c</style><script>if (a < b && c > d) x("</div>")</script></head><body><noscript><b>n</b></noscript><iframe><p>i</p></iframe></body></html>`, true},
		{"text with a bare <", `<html><head></head><body>a < b <3 <</body></html>`, true},
		{"trailing text after html", "<html><head></head><body>x</body></html>\n\n", true},
		{"forms and lists", `<html><head></head><body><form><ul><li>a</li><li><ol><li>b</li></ol></li></ul><dl><dt>t</dt><dd>d</dd></dl><button>b</button></form></body></html>`, true},
		{"misnested formatting", `<html><head></head><body><b><i>x</b>y</i></body></html>`, false},
		{"p closed by div", `<html><head></head><body><p>a<div>b</div></body></html>`, false},
		{"unclosed li", `<html><head></head><body><ul><li>a<li>b</ul></body></html>`, false},
		{"text in table", `<html><head></head><body><table>x<tr><td>1</td></tr></table></body></html>`, false},
		{"template", `<html><head><template><p>x</p></template></head><body></body></html>`, false},
		{"math", `<html><head></head><body><math><mi>x</mi></math></body></html>`, false},
		{"select", `<html><head></head><body><select><option>a</option></select></body></html>`, false},
		{"script escape", `<html><head><script><!--<script></script>--></script></head><body></body></html>`, false},
		{"cdata", `<html><head></head><body><svg><![CDATA[x]]></svg></body></html>`, false},
		{"implied html", `<p>x`, false},
		{"nul", "<html><head></head><body>a\x00b</body></html>", false},
		{"carriage return", "<html><head></head><body>a\r\nb</body></html>", false},
		{"a inside a", `<html><head></head><body><a href=1>x<a href=2>y</a></a></body></html>`, false},
		{"four identical b", `<html><head></head><body><b><b><b><b>x</b></b></b></b></body></html>`, false},
		{"deep nesting", "<html><head></head><body>" + strings.Repeat("<div>", 600) + strings.Repeat("</div>", 600) + "</body></html>", false},
		{"eof inside body", `<html><head></head><body><div><p>x`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sameTree(t, tc.name, tc.src); got != tc.fast {
				t.Errorf("fast builder took it: %v, want %v", got, tc.fast)
			}
		})
	}
}

// FuzzFastParse: for every input the fast builder either falls back or
// builds exactly html.Parse's tree (seeds that found bugs live in
// testdata/fuzz/FuzzFastParse).
func FuzzFastParse(f *testing.F) {
	f.Add(chatpage.Render(chatpage.Options{Turns: 6, Seed: 1, Sidebar: 3}))
	for _, s := range []string{
		`<!DOCTYPE html><html><head><title>a&amp;b</title></head><body><p>x</p></body></html>`,
		`<html><head></head><body><table><tr><td><b>x</b></td></tr></table></body></html>`,
		`<html><head></head><body><svg viewBox="0 0 1 1"><path d="M0"/><foreignObject>t</foreignObject></svg></body></html>`,
		`<html><head></head><body><a b=c/>x</a><pre>` + "\n" + `y</pre><textarea>` + "\n" + `z</textarea></body></html>`,
		`<html><head><style>x</style><script>y</script></head><body><!--c--></body></html>` + "\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<16 {
			return
		}
		sameTree(t, "fuzz", src)
	})
}

// html5libDoc is one document of the html5lib tree-construction tests.
type html5libDoc struct{ name, src string }

// html5libDocs reads the html5lib tree-construction tests that
// golang.org/x/net/html ships: every case that is a document, as it is and
// inside a body. dir is x/net/html's testdata directory.
func html5libDocs(t *testing.T) (dir string, docs []html5libDoc) {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "golang.org/x/net").Output()
	if err != nil {
		t.Fatalf("locating golang.org/x/net: %v", err)
	}
	dir = filepath.Join(strings.TrimSpace(string(out)), "html", "testdata")
	files, err := filepath.Glob(filepath.Join(dir, "html5lib-tests", "tree-construction", "*.dat"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no html5lib tests under %s: %v", dir, err)
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range strings.Split(string(data), "#data\n")[1:] {
			end := strings.Index(c, "\n#errors")
			if end < 0 || strings.Contains(c, "#document-fragment") {
				continue
			}
			name := fmt.Sprintf("%s case %d", filepath.Base(path), i+1)
			for _, src := range []string{c[:end], "<!DOCTYPE html><html><head></head><body>" + c[:end] + "</body></html>"} {
				docs = append(docs, html5libDoc{name, src})
			}
		}
	}
	return dir, docs
}

// TestFastParseHTML5Lib compares the trees of the html5lib tree-construction
// tests that golang.org/x/net/html ships (as documents and inside a body)
// and its go1.html page: most fall back, every one the fast builder takes
// must be html.Parse's tree.
func TestFastParseHTML5Lib(t *testing.T) {
	t.Parallel()
	dir, docs := html5libDocs(t)
	fast := 0
	for _, d := range docs {
		if sameTree(t, d.name, d.src) {
			fast++
		}
	}
	all := len(docs)
	go1, err := os.ReadFile(filepath.Join(dir, "go1.html"))
	if err != nil {
		t.Fatal(err)
	}
	sameTree(t, "go1.html", string(go1))
	t.Logf("%d html5lib documents: %d built fast, the rest by html.Parse", all, fast)
}
