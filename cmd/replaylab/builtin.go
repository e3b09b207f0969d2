package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/replaylab/replaylab"
)

// builtinFiles gives the files replaylab embeds (the test site's
// profiles, adapters, planted mistakes and recordings, the scenarios'
// recordings) to a command run outside a checkout, so the commands of
// docs/adapters.md work as printed in any directory.
type builtinFiles struct {
	stderr io.Writer
	cmd    string
	dir    string // the extracted copy, once needed
}

// path returns p when it exists on disk or is not a relative path
// replaylab embeds; otherwise the path of the embedded copy, extracted
// to a temp dir (the whole tree once: a profile names its adapter beside
// it), saying so on stderr.
func (b *builtinFiles) path(p string) (string, error) {
	if p == "" || filepath.IsAbs(p) {
		return p, nil
	}
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	name := path.Clean(filepath.ToSlash(p))
	if !fs.ValidPath(name) {
		return p, nil
	}
	if _, err := fs.Stat(replaylab.Files, name); err != nil {
		return p, nil
	}
	if b.dir == "" {
		dir, err := extractEmbedded()
		if err != nil {
			return "", err
		}
		b.dir = dir
	}
	fmt.Fprintf(b.stderr, "replaylab %s: %s is not in this directory: using the copy built into replaylab\n", b.cmd, p)
	return filepath.Join(b.dir, filepath.FromSlash(name)), nil
}

// Close removes the extracted copy.
func (b *builtinFiles) Close() error {
	if b.dir == "" {
		return nil
	}
	return os.RemoveAll(b.dir)
}

// show is the name to print for a path path returned: an extracted
// copy's path inside replaylab's files.
func (b *builtinFiles) show(p string) string {
	if b.dir == "" {
		return p
	}
	if rel, err := filepath.Rel(b.dir, p); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return p
}
