package harness

import (
	"bytes"
	"io/fs"
	"sync"
	"time"
)

// featureFS serves godog the selected feature files, each under its
// Scenario.URI with the unselected scenarios blanked (see
// parsedFeature.served). godog reads its paths through it, so the pickles
// it compiles carry the URI and the real line numbers.
type featureFS map[string][]byte

func (m featureFS) Open(name string) (fs.File, error) {
	data, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{Reader: bytes.NewReader(data), name: name, size: int64(len(data))}, nil
}

type memFile struct {
	*bytes.Reader
	name string
	size int64
}

func (f *memFile) Stat() (fs.FileInfo, error) { return memInfo{f}, nil }
func (f *memFile) Close() error               { return nil }

type memInfo struct{ f *memFile }

func (i memInfo) Name() string       { return i.f.name }
func (i memInfo) Size() int64        { return i.f.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

// features are a run's parsed feature files, each parsed once and shared
// by the selection, every retry pass's served files and the check for
// undefined steps (godog parses what it is served itself). A nil
// *features parses every time.
type features struct {
	mu     sync.Mutex
	byPath map[string]*parsedFeature
	parses int // files parsed (each once)
}

// parse returns the parsed file at path, parsing it on first use.
func (f *features) parse(path, uri string) (*parsedFeature, error) {
	if f == nil {
		return parseFeature(path, uri)
	}
	key := path + "\x00" + uri
	f.mu.Lock()
	defer f.mu.Unlock()
	if pf, ok := f.byPath[key]; ok {
		return pf, nil
	}
	pf, err := parseFeature(path, uri)
	if err != nil {
		return nil, err
	}
	f.parses++
	if f.byPath == nil {
		f.byPath = map[string]*parsedFeature{}
	}
	f.byPath[key] = pf
	return pf, nil
}
