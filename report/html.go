package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

//go:embed assets/report.html
var htmlTemplate string

// HTMLFile is the report's page inside its directory.
const HTMLFile = "index.html"

// WriteHTML writes the self-contained report page (index.html: its data,
// script and style inline, nothing fetched) and the model (report.json,
// which merge-reports reads) into dir.
func WriteHTML(dir string, r *Run) error {
	page, err := RenderHTML(r)
	if err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(dir, HTMLFile), page); err != nil {
		return err
	}
	return r.Save(filepath.Join(dir, ModelFile))
}

// RenderHTML returns the report page for r. The run's data is one JSON
// script element; every capture is its own, parsed only when shown.
func RenderHTML(r *Run) ([]byte, error) {
	meta := *r
	meta.Captures = nil
	data, err := json.Marshal(&meta) // escapes <, > and &: no </script> inside
	if err != nil {
		return nil, fmt.Errorf("report: html: %w", err)
	}
	var caps bytes.Buffer
	for i, c := range r.Captures {
		cj, err := json.Marshal(c)
		if err != nil {
			return nil, fmt.Errorf("report: html: capture %d: %w", i, err)
		}
		fmt.Fprintf(&caps, "<script type=\"application/json\" id=\"cap-%d\">%s</script>\n", i, cj)
	}
	title := "replaylab report"
	if r.Shard != "" {
		title += " (shard " + r.Shard + ")"
	}
	page := strings.NewReplacer(
		"{{TITLE}}", title,
		"{{DATA}}", string(data),
		"{{CAPTURES}}", caps.String(),
	).Replace(htmlTemplate)
	return []byte(page), nil
}

// Size returns the bytes of dir's report page, for the run's last line.
func Size(dir string) int64 {
	st, err := os.Stat(filepath.Join(dir, HTMLFile))
	if err != nil {
		return 0
	}
	return st.Size()
}
