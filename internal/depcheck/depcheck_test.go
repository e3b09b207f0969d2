package depcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/replaylab/replaylab"

// pkg is one package of the module as go list reports it; paths are
// relative to the module ("engine/locate"), others stay whole
// ("github.com/chromedp/chromedp").
type pkg struct {
	Path    string
	Imports []string // direct, non-test imports
	Deps    []string // every package it depends on, transitively
	// Testing: the package imports the standard library's testing
	// itself (its non-test files).
	Testing bool
}

// rule is one import rule. Subjects and patterns are package paths
// relative to the module; "x/..." means x and everything under it.
type rule struct {
	name     string
	subjects []string // the packages the rule is about
	except   []string // subjects it does not apply to (and why, in the name)
	// only: the module packages a subject may import directly (the
	// standard library and other modules are not limited by it).
	only []string
	// never: packages a subject must not depend on, directly or not,
	// but those in neverBut.
	never    []string
	neverBut []string
	// importsNever: packages a subject must not import itself (it may
	// depend on a package that does).
	importsNever []string
	// noTestingDeps: no module package a subject depends on (nor the
	// subject) imports testing, but those named here. (testing itself
	// may still be linked through another module: godog imports it.)
	noTestingDeps []string
	noTesting     bool
	// requires: the rule applies once this package exists (it may be
	// created after the rule is written).
	requires string
}

// rules are the import rules of the architecture. Where the written rule
// is stricter than the code, the table says what the code needs and why.
var rules = []rule{
	{
		name:     "harness imports only report, engine/driver, engine/trace (and engine/capture, the driver's data, and internal packages)",
		subjects: []string{"harness/..."},
		only:     []string{"harness/...", "report", "engine/driver", "engine/trace", "engine/capture", "internal/..."},
		requires: "harness",
	},
	{
		name:     "harness depends on no engine package but engine/driver, engine/capture and engine/trace (the recording format is the fixture's)",
		subjects: []string{"harness/..."},
		never:    []string{"engine/..."},
		neverBut: []string{"engine/driver", "engine/capture", "engine/trace"},
		requires: "harness",
	},
	{
		name:     "report depends on no engine package (the fixture hands it rendered captures)",
		subjects: []string{"report/..."},
		never:    []string{"engine/..."},
	},
	{
		name:     "harness never depends on steps, sim or engine/browser",
		subjects: []string{"harness/..."},
		never:    []string{"steps/...", "sim/...", "engine/browser/...", "github.com/chromedp/..."},
		requires: "harness",
	},
	{
		name:     "sim imports only ledger (and engine/errcode for its codes, engine/clock for the lab clock, internal/solidpng for its picture)",
		subjects: []string{"sim/..."},
		only:     []string{"sim/...", "ledger/...", "engine/errcode", "engine/clock", "internal/solidpng"},
	},
	{
		name:     "engine never imports ledger: the ledger is a product beside the engine, not part of it",
		subjects: []string{"engine/..."},
		never:    []string{"ledger/..."},
	},
	{
		name:     "ledger imports no engine package but its leaves (engine/errcode for the codes, engine/clock for the lab clock)",
		subjects: []string{"ledger/..."},
		except:   []string{"ledger/ledgerlab"},
		only:     []string{"ledger/...", "engine/errcode", "engine/clock", "internal/..."},
	},
	{
		name:     "observe, adapter, locate and monitor import no driver",
		subjects: []string{"engine/observe/...", "engine/adapter/...", "engine/locate/...", "engine/monitor/..."},
		never:    []string{"engine/browser/...", "engine/replay/...", "github.com/chromedp/..."},
	},
	{
		name:     "nothing in engine imports sim or steps",
		subjects: []string{"engine/..."},
		never:    []string{"sim/...", "steps/...", "cmd/..."},
	},
	{
		name:         "only engine/browser imports chromedp (bench/sidebyside drives a bare Chromium as the baseline it measures against)",
		subjects:     []string{"..."},
		except:       []string{"engine/browser", "bench/sidebyside"},
		importsNever: []string{"github.com/chromedp/..."},
	},
	{
		name:     "steps imports harness, engine/*, ledger, sim (and explore, report and internal packages the vocabulary drives)",
		subjects: []string{"steps/..."},
		only:     []string{"steps/...", "harness/...", "engine/...", "ledger/...", "sim/...", "explore/...", "report/...", "internal/..."},
	},
	{
		name:     "the steps runtime depends on no domain group: steps/<domain>steps and steps/vocabulary import it, never the reverse",
		subjects: []string{"steps"},
		never:    []string{"steps/..."},
	},
	{
		name:     "a domain group imports the steps runtime and no other group (nor the vocabulary that composes them)",
		subjects: []string{"steps/..."},
		except:   []string{"steps", "steps/vocabulary"},
		only:     []string{"steps", "harness/...", "engine/...", "ledger/...", "sim/...", "explore/...", "report/...", "internal/..."},
	},
	{
		name:     "steps never depends on internal/selftest (the self-tests sit on the vocabulary's seam, steps.Group)",
		subjects: []string{"steps/..."},
		never:    []string{"internal/selftest/..."},
		requires: "internal/selftest",
	},
	{
		name:     "internal/selftest imports steps (the runtime and the composed vocabulary), harness, engine/*, ledger, explore, report and internal packages (no sim: it reaches a scenario through steps)",
		subjects: []string{"internal/selftest/..."},
		only:     []string{"steps", "steps/vocabulary", "harness/...", "engine/...", "ledger/...", "explore/...", "report/...", "internal/..."},
		requires: "internal/selftest",
	},
	{
		name:     "no package imports internal/selftest: the self-tests are bound only under go test (its tests, and cmd/replaylab's, which check the binary's copy of their catalogue)",
		subjects: []string{"..."},
		except:   []string{"internal/selftest/..."},
		never:    []string{"internal/selftest/..."},
		requires: "internal/selftest",
	},
	{
		name:      "the replaylab binary links no test code: no internal/selftest, internal/testskip, harness/lsp/lsptest, and no package of the module that imports testing (harness passes godog's *testing.T; godog imports testing itself)",
		subjects:  []string{"cmd/replaylab"},
		never:     []string{"internal/selftest/...", "internal/testskip/...", "harness/lsp/lsptest/..."},
		noTesting: true, noTestingDeps: []string{"harness"},
	},
	{
		name:     "engine/driver is a leaf: it imports only engine/capture, the data a driver returns",
		subjects: []string{"engine/driver"},
		only:     []string{"engine/capture"},
		requires: "engine/driver",
	},
	{
		name:     "engine/errcode is a leaf: it imports no package of the module",
		subjects: []string{"engine/errcode"},
		only:     []string{},
	},
	{
		name:     "nothing outside cmd imports cmd",
		subjects: []string{"..."},
		except:   []string{"cmd/..."},
		never:    []string{"cmd/..."},
	},
}

func match(pattern, path string) bool {
	if pattern == "..." {
		return inModule(path)
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}

func matchAny(patterns []string, path string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return match(p, path) })
}

// check returns one message per violation of r in pkgs.
func check(r rule, pkgs map[string]*pkg) []string {
	var out []string
	for _, p := range sorted(pkgs) {
		if !matchAny(r.subjects, p.Path) || matchAny(r.except, p.Path) {
			continue
		}
		if r.only != nil {
			for _, imp := range p.Imports {
				if inModule(imp) && !matchAny(r.only, imp) {
					out = append(out, fmt.Sprintf("%s imports %s: breaks %q", p.Path, imp, r.name))
				}
			}
		}
		for _, dep := range p.Deps {
			if matchAny(r.never, dep) && !matchAny(r.neverBut, dep) {
				out = append(out, fmt.Sprintf("%s imports %s (%s): breaks %q", via(p, dep, pkgs), dep, "depended on by "+p.Path, r.name))
			}
		}
		if r.noTesting {
			for _, d := range append([]string{p.Path}, p.Deps...) {
				if q := pkgs[d]; q != nil && q.Testing && !matchAny(r.noTestingDeps, d) {
					out = append(out, fmt.Sprintf("%s imports testing (depended on by %s): breaks %q", d, p.Path, r.name))
				}
			}
		}
		for _, imp := range p.Imports {
			if matchAny(r.importsNever, imp) {
				out = append(out, fmt.Sprintf("%s imports %s: breaks %q", p.Path, imp, r.name))
			}
		}
	}
	return out
}

// via names the package on p's dependency path that imports dep directly.
func via(p *pkg, dep string, pkgs map[string]*pkg) string {
	if slices.Contains(p.Imports, dep) {
		return p.Path
	}
	for _, d := range p.Deps {
		if q := pkgs[d]; q != nil && slices.Contains(q.Imports, dep) {
			return q.Path
		}
	}
	return p.Path
}

// inModule tells module packages (relative paths, "engine/locate") from
// other modules' ("github.com/…"); the standard library is dropped when
// the graph is read.
func inModule(path string) bool { return !strings.Contains(strings.SplitN(path, "/", 2)[0], ".") }

func sorted(pkgs map[string]*pkg) []*pkg {
	var out []*pkg
	for _, p := range pkgs {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *pkg) int { return strings.Compare(a.Path, b.Path) })
	return out
}

func relative(path string) string {
	if path == module {
		return "."
	}
	if rest, ok := strings.CutPrefix(path, module+"/"); ok {
		return rest
	}
	return path
}

// listModule runs go list -deps over the whole module: every package of
// the module with its direct and transitive non-test imports, the
// standard library left out.
func listModule(t *testing.T) map[string]*pkg {
	t.Helper()
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	cmd := exec.Command("go", "list", "-deps", "-json", "./...")
	cmd.Dir = strings.TrimSpace(string(root))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -json ./...: %v\n%s", err, stderr.Bytes())
	}
	type listed struct {
		ImportPath    string
		Standard      bool
		Imports, Deps []string
	}
	var all []listed
	std := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(outb))
	for {
		var l listed
		if err := dec.Decode(&l); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if l.Standard {
			std[l.ImportPath] = true
		}
		all = append(all, l)
	}
	keep := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			if !std[p] {
				out = append(out, relative(p))
			}
		}
		return out
	}
	pkgs := map[string]*pkg{}
	for _, l := range all {
		if l.Standard || (l.ImportPath != module && !strings.HasPrefix(l.ImportPath, module+"/")) {
			continue
		}
		p := &pkg{Path: relative(l.ImportPath), Imports: keep(l.Imports), Deps: keep(l.Deps), Testing: slices.Contains(l.Imports, "testing")}
		pkgs[p.Path] = p
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages; is this the module root?", len(pkgs))
	}
	return pkgs
}

// TestImportRules enforces every rule over the module as it is.
func TestImportRules(t *testing.T) {
	t.Parallel()
	pkgs := listModule(t)
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			if r.requires != "" && pkgs[r.requires] == nil {
				t.Logf("package %s does not exist yet; the rule applies once it does", r.requires)
				return
			}
			for _, v := range check(r, pkgs) {
				t.Error(v)
			}
		})
	}
}

// TestRulesCatchViolations: each rule finds a violation planted in a small
// module graph, and names importer, imported and the rule.
func TestRulesCatchViolations(t *testing.T) {
	t.Parallel()
	byName := func(prefix string) rule {
		t.Helper()
		for _, r := range rules {
			if strings.HasPrefix(r.name, prefix) {
				return r
			}
		}
		t.Fatalf("no rule %q", prefix)
		return rule{}
	}
	graph := func(ps ...*pkg) map[string]*pkg {
		m := map[string]*pkg{}
		for _, p := range ps {
			m[p.Path] = p
		}
		return m
	}
	tests := []struct {
		name string
		rule rule
		pkgs map[string]*pkg
		want string // a violation message holds this; "" for none
	}{
		{"harness imports sim directly", byName("harness imports only"),
			graph(&pkg{Path: "harness", Imports: []string{"sim", "report"}, Deps: []string{"sim", "report"}}), `harness imports sim: breaks "harness imports only`},
		{"harness reaches browser through another package", byName("harness never"),
			graph(&pkg{Path: "harness", Imports: []string{"report"}, Deps: []string{"report", "engine/browser"}},
				&pkg{Path: "report", Imports: []string{"engine/browser"}}), `report imports engine/browser (depended on by harness)`},
		{"sim imports engine", byName("sim imports only"),
			graph(&pkg{Path: "sim", Imports: []string{"engine", "ledger"}}), `sim imports engine: breaks`},
		{"sim within its rule", byName("sim imports only"),
			graph(&pkg{Path: "sim", Imports: []string{"ledger", "engine/clock", "internal/solidpng", "github.com/google/uuid"}}), ""},
		{"sim imports an internal package other than its picture's", byName("sim imports only"),
			graph(&pkg{Path: "sim", Imports: []string{"ledger", "internal/serve"}}), `sim imports internal/serve: breaks`},
		{"locate depends on replay", byName("observe, adapter, locate"),
			graph(&pkg{Path: "engine/locate", Imports: []string{"engine/replay"}, Deps: []string{"engine/replay"}}), `engine/locate imports engine/replay`},
		{"engine/mcp depends on steps", byName("nothing in engine"),
			graph(&pkg{Path: "engine/mcp", Imports: []string{"steps"}, Deps: []string{"steps"}}), `engine/mcp imports steps`},
		{"report imports chromedp", byName("only engine/browser imports chromedp"),
			graph(&pkg{Path: "report", Imports: []string{"github.com/chromedp/chromedp"}}), `report imports github.com/chromedp/chromedp`},
		{"the browser driver may", byName("only engine/browser imports chromedp"),
			graph(&pkg{Path: "engine/browser", Imports: []string{"github.com/chromedp/chromedp"}}), ""},
		{"steps imports cmd", byName("steps imports"),
			graph(&pkg{Path: "steps", Imports: []string{"cmd/replaylab"}}), `steps imports cmd/replaylab`},
		{"the runtime imports a domain group", byName("the steps runtime depends on no domain group"),
			graph(&pkg{Path: "steps", Imports: []string{"steps/ledgersteps"}, Deps: []string{"steps/ledgersteps"}}), `steps imports steps/ledgersteps`},
		{"a domain group imports another", byName("a domain group imports the steps runtime"),
			graph(&pkg{Path: "steps/ledgersteps", Imports: []string{"steps", "steps/chatsteps"}}), `steps/ledgersteps imports steps/chatsteps: breaks`},
		{"a domain group imports the vocabulary", byName("a domain group imports the steps runtime"),
			graph(&pkg{Path: "steps/ledgersteps", Imports: []string{"steps/vocabulary"}}), `steps/ledgersteps imports steps/vocabulary: breaks`},
		{"a domain group within its rule", byName("a domain group imports the steps runtime"),
			graph(&pkg{Path: "steps/ledgersteps", Imports: []string{"steps", "ledger/ledgerlab", "engine/trace", "sim"}}), ""},
		{"steps imports the self-tests", byName("steps never depends on internal/selftest"),
			graph(&pkg{Path: "steps", Imports: []string{"internal/selftest"}, Deps: []string{"internal/selftest"}}), `steps imports internal/selftest`},
		{"the self-tests import sim", byName("internal/selftest imports"),
			graph(&pkg{Path: "internal/selftest", Imports: []string{"steps", "sim"}}), `internal/selftest imports sim: breaks`},
		{"the self-tests within their rule", byName("internal/selftest imports"),
			graph(&pkg{Path: "internal/selftest", Imports: []string{"steps", "harness/lsp", "engine/trace", "explore", "internal/syncbuf"}}), ""},
		{"report depends on the self-tests", byName("no package imports internal/selftest"),
			graph(&pkg{Path: "report", Imports: []string{"internal/selftest"}, Deps: []string{"internal/selftest", "steps"}}), `report imports internal/selftest`},
		{"cmd imports the self-tests", byName("no package imports internal/selftest"),
			graph(&pkg{Path: "cmd/replaylab", Imports: []string{"internal/selftest"}, Deps: []string{"internal/selftest"}}), `cmd/replaylab imports internal/selftest`},
		{"the binary links the self-tests", byName("the replaylab binary links no test code"),
			graph(&pkg{Path: "cmd/replaylab", Imports: []string{"steps"}, Deps: []string{"steps", "internal/selftest"}},
				&pkg{Path: "steps", Imports: []string{"internal/selftest"}}), `steps imports internal/selftest (depended on by cmd/replaylab)`},
		{"the binary depends on a package that imports testing", byName("the replaylab binary links no test code"),
			graph(&pkg{Path: "cmd/replaylab", Imports: []string{"steps"}, Deps: []string{"steps", "internal/skipnote"}},
				&pkg{Path: "steps", Imports: []string{"internal/skipnote"}}, &pkg{Path: "internal/skipnote", Testing: true}),
			`internal/skipnote imports testing (depended on by cmd/replaylab)`},
		{"the binary within its rule", byName("the replaylab binary links no test code"),
			graph(&pkg{Path: "cmd/replaylab", Imports: []string{"harness", "steps"}, Deps: []string{"harness", "steps", "github.com/cucumber/godog"}},
				&pkg{Path: "harness", Testing: true}, &pkg{Path: "steps"}), ""},
		{"the driver leaf imports the engine", byName("engine/driver is a leaf"),
			graph(&pkg{Path: "engine/driver", Imports: []string{"engine/capture", "engine"}}), `engine/driver imports engine:`},
		{"the driver leaf imports capture", byName("engine/driver is a leaf"),
			graph(&pkg{Path: "engine/driver", Imports: []string{"engine/capture"}}), ""},
		{"harness imports engine/replay", byName("harness imports only"),
			graph(&pkg{Path: "harness", Imports: []string{"engine/replay"}, Deps: []string{"engine/replay"}}), `harness imports engine/replay:`},
		{"harness reaches the engine through report", byName("harness depends on no engine"),
			graph(&pkg{Path: "harness", Imports: []string{"report"}, Deps: []string{"report", "engine/observe", "engine/driver"}},
				&pkg{Path: "report", Imports: []string{"engine/observe"}, Deps: []string{"engine/observe"}}), `report imports engine/observe (depended on by harness)`},
		{"harness on the driver leaf", byName("harness depends on no engine"),
			graph(&pkg{Path: "harness", Imports: []string{"engine/driver"}, Deps: []string{"engine/driver", "engine/capture"}}), ""},
		{"report imports the adapter", byName("report depends on no engine"),
			graph(&pkg{Path: "report", Imports: []string{"engine/adapter"}, Deps: []string{"engine/adapter"}}), `report imports engine/adapter`},
		{"errcode imports observe", byName("engine/errcode is a leaf"),
			graph(&pkg{Path: "engine/errcode", Imports: []string{"engine/observe"}}), `engine/errcode imports engine/observe`},
		{"engine imports the ledger", byName("engine never imports ledger"),
			graph(&pkg{Path: "engine/mcp", Imports: []string{"ledger"}, Deps: []string{"ledger"}}), `engine/mcp imports ledger`},
		{"the ledger imports the engine", byName("ledger imports no engine"),
			graph(&pkg{Path: "ledger", Imports: []string{"engine/observe"}}), `ledger imports engine/observe`},
		{"sim imports cmd", byName("nothing outside cmd"),
			graph(&pkg{Path: "sim", Imports: []string{"cmd/replaylab"}, Deps: []string{"cmd/replaylab"}}), `sim imports cmd/replaylab`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := check(tt.rule, tt.pkgs)
			if tt.want == "" {
				if len(got) > 0 {
					t.Fatalf("got %q, want no violation", got)
				}
				return
			}
			if len(got) == 0 || !slices.ContainsFunc(got, func(v string) bool { return strings.Contains(v, tt.want) }) {
				t.Fatalf("got %q, want a violation holding %q", got, tt.want)
			}
		})
	}
}
