package adapter

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/replaylab/replaylab/engine/observe"
)

// Auto tries its adapters in order and keeps the first that finds turn
// structure (user or assistant turns). Result.Adapter says which it picked
// ("auto→marker") and Result.Note why; when none finds structure the
// result has Structure false (ANS-9). The choice is a pure function of the
// page: the same capture always picks the same adapter.
type Auto struct {
	Adapters []Adapter
}

// DefaultAuto tries the marker style, then the heading style: markers are
// the more specific evidence, so a page carrying both is read by markers.
var DefaultAuto = Auto{Adapters: []Adapter{DefaultMarker, DefaultHeading}}

// Name implements Adapter.
func (a Auto) Name() string { return "auto" }

// Groups implements Adapter.
func (a Auto) Groups(doc *observe.Document) Result { return loaded(a.find(doc)) }

func (a Auto) find(doc *observe.Document) Result { return a.findAfter(doc, Result{}) }

// findAfter is find, handing prev (found on the document doc was parsed
// from) to the adapter that found it.
func (a Auto) findAfter(doc *observe.Document, prev Result) Result {
	var tried []string
	for _, ad := range a.Adapters {
		var r Result
		if prev.Adapter == "auto→"+ad.Name() {
			r = LazyAfter(ad, doc, prev)
		} else {
			r = Lazy(ad, doc)
		}
		if r.Structure {
			note := "auto picked " + ad.Name() + " (" + strconv.Itoa(r.Turns) + " turns, " + strconv.Itoa(len(r.Groups)) + " answer groups)"
			if len(tried) > 0 {
				note += "; no turns by " + strings.Join(tried, ", ")
			}
			r.Adapter = "auto→" + r.Adapter
			r.Note = note
			return r
		}
		tried = append(tried, ad.Name())
	}
	return Result{Adapter: a.Name(), Groups: []Group{}, Note: "auto: no turns by " + strings.Join(tried, ", ")}
}

// ErrUnknownAdapter is wrapped when ByName is given neither a built-in
// style nor a readable adapter file.
var ErrUnknownAdapter = errors.New("unknown adapter")

// ByName returns the adapter a user named: "marker", "heading", "auto", or
// the path of an adapter file.
func ByName(name string) (Adapter, error) {
	switch name {
	case "marker":
		return DefaultMarker, nil
	case "heading":
		return DefaultHeading, nil
	case "auto":
		return DefaultAuto, nil
	}
	if name != "" {
		if _, err := os.Stat(name); err == nil {
			return LoadFile(name)
		}
	}
	return nil, fmt.Errorf("adapter: %w %q: want marker, heading, auto or the path of an adapter file", ErrUnknownAdapter, name)
}
