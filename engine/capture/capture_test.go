package capture_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/replaylab/replaylab/engine/capture"
)

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"valid", `{"version":1,"url":"http://x/","frames":[{"id":"main","url":"http://x/","html":"<p>hi</p>"}]}`, nil},
		{"other version", `{"version":4,"url":"u","frames":[]}`, capture.ErrVersion},
		{"version 1", `{"version":1,"url":"http://x/","frames":[{"id":"main","url":"http://x/","html":"<p data-rl-node=\"12\">hi</p>"}]}`, nil},
		{"version 2", `{"version":2,"url":"http://x/","frames":[{"id":"main","url":"http://x/","html":"<p data-rl-node=\"t12\">hi</p>"}]}`, nil},
		{"version 3", `{"version":3,"url":"http://x/","frames":[{"id":"main","url":"http://x/","html":"<x-card data-rl-node=\"t3\" data-rl-shadow=\"closed\"></x-card>"}]}`, nil},
		{"no version", `{"url":"u","frames":[]}`, capture.ErrMalformed},
		{"not json", `<html>`, capture.ErrMalformed},
		{"no frames", `{"version":1,"url":"u","frames":[]}`, capture.ErrMalformed},
		{"main not first", `{"version":1,"url":"u","frames":[{"id":"f1","url":"u","html":""}]}`, capture.ErrMalformed},
		{"duplicate frame", `{"version":1,"url":"u","frames":[{"id":"main","url":"u","html":""},{"id":"main","parent":"main","url":"u","html":""}]}`, capture.ErrMalformed},
		{"orphan frame", `{"version":1,"url":"u","frames":[{"id":"main","url":"u","html":""},{"id":"f1","parent":"f9","url":"u","html":""}]}`, capture.ErrMalformed},
		{"unknown field", `{"version":1,"url":"u","bogus":1,"frames":[{"id":"main","url":"u","html":""}]}`, capture.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := capture.Decode([]byte(tt.in))
			if !errors.Is(err, tt.want) && !(tt.want == nil && err == nil) {
				t.Fatalf("Decode: got %v, want %v", err, tt.want)
			}
		})
	}
}

func TestVersionErrorNamesBothVersions(t *testing.T) {
	t.Parallel()
	_, err := capture.Decode([]byte(`{"version":7,"url":"u","frames":[]}`))
	if err == nil || !strings.Contains(err.Error(), "version 7") || !strings.Contains(err.Error(), "supports 1 to 3") {
		t.Fatalf("got %v, want a message naming version 7 and the supported 1 to 3", err)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "c.json")
	c := capture.New("http://x/", `<input data-rl-node="3" data-rl-value="typed">`)
	c.Frames = append(c.Frames, capture.Frame{ID: "f1", Parent: "main", Owner: "7", URL: "about:srcdoc", HTML: "<p>inner</p>"})
	if err := capture.Save(path, c); err != nil {
		t.Fatal(err)
	}
	got, err := capture.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Frames) != 2 || got.Frames[1].Owner != "7" || got.Frames[0].HTML != c.Frames[0].HTML {
		t.Fatalf("round trip: got %+v, want %+v", got, c)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("save left temp files: %v", entries)
	}
}

func TestSaveRefusesInvalidAndKeepsOldFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.json")
	good := capture.New("http://x/", "<p>old</p>")
	if err := capture.Save(path, good); err != nil {
		t.Fatal(err)
	}
	bad := &capture.Capture{Version: capture.FormatVersion}
	if err := capture.Save(path, bad); !errors.Is(err, capture.ErrMalformed) {
		t.Fatalf("Save(invalid): got %v, want ErrMalformed", err)
	}
	got, err := capture.Load(path)
	if err != nil || got.Frames[0].HTML != "<p>old</p>" {
		t.Fatalf("old file changed: %v %+v", err, got)
	}
}

func TestLoadMissingFileNamesPath(t *testing.T) {
	t.Parallel()
	_, err := capture.Load("/no/such/capture.json")
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "/no/such/capture.json") {
		t.Fatalf("got %v", err)
	}
}

// FuzzDecode: the capture loader never panics and accepts only valid
// captures.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"version":1,"url":"http://x/","frames":[{"id":"main","url":"http://x/","html":"<p>hi</p>"}]}`))
	f.Add([]byte(`{"version":1,"url":"u","frames":[{"id":"main","url":"u","html":""},{"id":"f1","parent":"main","url":"u","html":""}]}`))
	f.Add([]byte(`{"version":"1"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := capture.Decode(data)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Decode accepted an invalid capture: %v", err)
		}
	})
}
