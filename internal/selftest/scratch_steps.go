package selftest

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cucumber/godog"

	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/steps"
)

// Files of the scratch project besides its feature files: the site
// profiles, adapter files and recordings a scenario plants, and what a
// run left (a dry run leaves nothing).
func scratchFileSteps(r *steps.Table) {
	r.Step(`^a file "([^"]*)" in the scratch project with:$`, "write any file (a site profile, an adapter file, a session) into the scratch project, the path from its root",
		"Given a file \"sites/shop.adapter.json\" in the scratch project with:", scratchFile)
	r.Step(`^the scratch project holds a copy of the repository's "([^"]*)"$`, "copy a file or directory of this repository (the path from its root) into the scratch project, at the same path",
		`Given the scratch project holds a copy of the repository's "testsite"`, scratchCopy)
	r.Step(`^the scratch file "([^"]*)" holds:$`, "a file of the scratch project holds exactly this text",
		"Then the scratch file \"features/send.feature\" holds:", scratchHolds)
	r.Step(`^I run replaylab with "([^"]*)" and it writes no file$`, "the same run of the replaylab binary in the scratch project; no file of the project is added, removed or changed by it (size and time)",
		`When I run replaylab with "run --dry-run" and it writes no file`, scratchExecNoWrite)
}

func scratchFile(ctx context.Context, name string, doc *godog.DocString) error {
	h, err := scratchProject(ctx)
	if err != nil {
		return err
	}
	path, err := scratchPath(h, name)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	steps.WorldOf(ctx).Emit(trace.E("harness.file", trace.A("path", name)))
	return os.WriteFile(path, []byte(doc.Content), 0o644)
}

func scratchPath(h *harnessState, name string) (string, error) {
	if filepath.IsAbs(name) || strings.HasPrefix(filepath.Clean(name), "..") {
		return "", fmt.Errorf("%s: name a file inside the scratch project", name)
	}
	return filepath.Join(h.root, filepath.FromSlash(name)), nil
}

func scratchCopy(ctx context.Context, name string) error {
	h, err := scratchProject(ctx)
	if err != nil {
		return err
	}
	dst, err := scratchPath(h, name)
	if err != nil {
		return err
	}
	src := filepath.Join(steps.WorldOf(ctx).Root(), filepath.FromSlash(name))
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	steps.WorldOf(ctx).Emit(trace.E("harness.copy", trace.A("path", name)))
	if info.IsDir() {
		return os.CopyFS(dst, os.DirFS(src))
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

func scratchHolds(ctx context.Context, name string, doc *godog.DocString) error {
	h, err := scratchProject(ctx)
	if err != nil {
		return err
	}
	p, err := scratchPath(h, name)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if got, want := strings.TrimRight(string(data), "\n"), strings.TrimRight(doc.Content, "\n"); got != want {
		return fmt.Errorf("%s holds:\n%s\nwant:\n%s", name, got, want)
	}
	return nil
}

// scratchFiles lists every file under the scratch project with its size
// and modification time.
func scratchFiles(root string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = fmt.Sprintf("%v %d %s", d.IsDir(), info.Size(), info.ModTime())
		return err
	})
	return out, err
}

func scratchExecNoWrite(ctx context.Context, args string) error {
	h, err := scratchProject(ctx)
	if err != nil {
		return err
	}
	before, err := scratchFiles(h.root)
	if err != nil {
		return err
	}
	if err := harnessExec(ctx, args); err != nil {
		return err
	}
	after, err := scratchFiles(h.root)
	if err != nil {
		return err
	}
	var changed []string
	for f, v := range after {
		if before[f] != v {
			changed = append(changed, f)
		}
	}
	for f := range before {
		if _, ok := after[f]; !ok {
			changed = append(changed, f+" (removed)")
		}
	}
	if len(changed) > 0 {
		slices.Sort(changed)
		return fmt.Errorf("replaylab %s wrote %s", args, strings.Join(changed, ", "))
	}
	return nil
}
