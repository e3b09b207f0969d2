// Package capture is the unit of observation and recording: the DOM of a page
// frozen at one instant, per frame, with the live state that plain HTML does
// not carry written into it as data-rl-* attributes (input values,
// checked/selected, computed hidden, media readiness, a stable node id per
// element).
//
// Every driver produces captures and every observation is made from one, so
// a recorded capture replays through exactly the code that runs live. The
// format is versioned: Load refuses any other version with ErrVersion, and
// Save writes atomically (temp file, fsync, rename), so a crash never leaves
// half a capture on disk.
package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// FormatVersion is the version of the capture format this package writes.
// Bump it when a field changes meaning; Load reads it and the versions
// before it that it can (Readable) and refuses any other, naming both.
//
// Version 2: a live capture's AttrNode is an opaque id ("t" and a number
// where the browser driver's tracker numbered the page, a backend node id
// elsewhere). Version 1 files (backend node ids only) read unchanged: both
// are ids an action names a node by, compared only for equality.
//
// Version 3: open shadow roots are the composed tree (their content under
// the host, slots holding their assigned nodes) and a closed root is named
// by AttrShadow on its host, its content left out. Version 1 and 2 files
// read unchanged: they hold no AttrShadow, and a page with shadow DOM was
// written as its composed tree then too, closed roots included.
const FormatVersion = 3

// Readable reports whether this build reads captures of version v.
func Readable(v int) bool { return v >= 1 && v <= FormatVersion }

func versionError(v int) error {
	return fmt.Errorf("%w: file has version %d, this build supports 1 to %d", ErrVersion, v, FormatVersion)
}

// Attributes that carry live state inside a frame's HTML. A browser driver
// writes them from the live DOM; pages loaded from plain .html files simply
// lack them and observation falls back to the markup (value attribute,
// checked attribute, inline styles).
const (
	// AttrNode is the stable id of an element within one page load, an
	// opaque string (in the browser driver: the tracker's "t" and a
	// number, or Chromium's backend node id).
	AttrNode = "data-rl-node"
	// AttrHidden marks an element the renderer does not show: "display"
	// (no layout box: the whole subtree is hidden) or "visibility"
	// (visibility:hidden on this element only).
	AttrHidden = "data-rl-hidden"
	// AttrValue is the live value of input, textarea and select elements.
	AttrValue = "data-rl-value"
	// AttrChecked is "true" or "false" for checkboxes and radios.
	AttrChecked = "data-rl-checked"
	// AttrSelected is "true" on option elements that are selected.
	AttrSelected = "data-rl-selected"
	// AttrMediaReady is a media element's readyState (0-4) for video and
	// audio, and "complete"/"broken"/"loading" for images.
	AttrMediaReady = "data-rl-ready"
	// AttrMediaSrc is the media element's current source URL.
	AttrMediaSrc = "data-rl-src"
	// AttrSize is the rendered size "WxH" in CSS pixels (natural size for
	// images).
	AttrSize = "data-rl-size"
	// AttrFrame on an iframe element names the capture frame that holds its
	// document.
	AttrFrame = "data-rl-frame"
	// AttrShadow is "closed" on an element that hosts a closed shadow
	// root. A capture holds the composed tree of open shadow roots (their
	// content under its host, each slot holding its assigned nodes), as
	// the page renders it; a closed root's content is left out, and named
	// by this attribute on its host (version 3).
	AttrShadow = "data-rl-shadow"
)

// MainFrame is the id of the top-level document's frame.
const MainFrame = "main"

// Capture is one page frozen at one instant.
type Capture struct {
	Version int     `json:"version"`
	URL     string  `json:"url"`
	Title   string  `json:"title,omitempty"`
	Frames  []Frame `json:"frames"`
}

// Frame is one document of the page. Frames[0] is the main frame; child
// frames name their parent and the iframe element that owns them.
type Frame struct {
	ID string `json:"id"`
	// Parent is the id of the parent frame, empty for the main frame.
	Parent string `json:"parent,omitempty"`
	// Owner is the AttrNode value of the iframe element in the parent.
	Owner string `json:"owner,omitempty"`
	URL   string `json:"url"`
	// HTML is the serialised document with live state attributes.
	HTML string `json:"html"`
}

// ErrVersion is returned (wrapped) when a file holds another format version.
var ErrVersion = errors.New("capture: unsupported format version")

// ErrMalformed is returned (wrapped) when a file is not a capture at all.
var ErrMalformed = errors.New("capture: malformed file")

// New returns a capture of a single-frame page.
func New(url, html string) *Capture {
	return &Capture{Version: FormatVersion, URL: url, Frames: []Frame{{ID: MainFrame, URL: url, HTML: html}}}
}

// Validate checks the structural rules every capture must obey.
func (c *Capture) Validate() error {
	if !Readable(c.Version) {
		return versionError(c.Version)
	}
	if len(c.Frames) == 0 {
		return fmt.Errorf("%w: no frames", ErrMalformed)
	}
	if c.Frames[0].ID != MainFrame || c.Frames[0].Parent != "" {
		return fmt.Errorf("%w: frames[0] must be the main frame, got id %q", ErrMalformed, c.Frames[0].ID)
	}
	seen := map[string]bool{}
	for i, f := range c.Frames {
		if f.ID == "" {
			return fmt.Errorf("%w: frames[%d] has no id", ErrMalformed, i)
		}
		if seen[f.ID] {
			return fmt.Errorf("%w: frames[%d] repeats id %q", ErrMalformed, i, f.ID)
		}
		if i > 0 && !seen[f.Parent] {
			return fmt.Errorf("%w: frames[%d] (%q) names parent %q before it appears", ErrMalformed, i, f.ID, f.Parent)
		}
		seen[f.ID] = true
	}
	return nil
}

// Decode reads a capture from JSON and validates it.
func Decode(data []byte) (*Capture, error) {
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if probe.Version == nil {
		return nil, fmt.Errorf("%w: no version field", ErrMalformed)
	}
	if !Readable(*probe.Version) {
		return nil, versionError(*probe.Version)
	}
	var c Capture
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Load reads a capture file.
func Load(path string) (*Capture, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	c, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Save writes c to path atomically.
func Save(path string, c *Capture) error {
	if err := c.Validate(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	return WriteFileAtomic(path, append(data, '\n'))
}

// WriteFileAtomic writes data to a temp file beside path, syncs it and
// renames it over path, so readers see the old file or the new one, never a
// torn write. Recordings use it too.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("capture: write %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("capture: sync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("capture: close %s: %w", tmp, err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("capture: rename: %w", err)
	}
	return nil
}
