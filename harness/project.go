package harness

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// CopyProject copies parts of the project at src into the project at dst,
// so a run there can change them without touching src: the feature files
// named (file names under features/) with their recordings
// (recordings/golden/<name> and recordings/sessions/<name>, name the
// file's without .feature and with "-" for "_"), or with no file named
// the whole suite (features, recordings, docs and testsite). A recordings
// directory or a part of the suite that does not exist is left out.
func CopyProject(src, dst string, files ...string) error {
	var pairs [][2]string
	if len(files) == 0 {
		for _, dir := range []string{"features", "recordings", "docs", "testsite"} {
			pairs = append(pairs, [2]string{filepath.Join(src, dir), filepath.Join(dst, dir)})
		}
	}
	for _, file := range files {
		if err := copyTree(filepath.Join(src, "features", file), filepath.Join(dst, "features", file)); err != nil {
			return err
		}
		dir := strings.ReplaceAll(strings.TrimSuffix(file, ".feature"), "_", "-")
		for _, kind := range []string{"golden", "sessions"} {
			pairs = append(pairs, [2]string{filepath.Join(src, "recordings", kind, dir), filepath.Join(dst, "recordings", kind, dir)})
		}
	}
	for _, p := range pairs {
		if err := copyTree(p[0], p[1]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// copyTree copies the file or directory from to to.
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		target := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}
