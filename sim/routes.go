package sim

import (
	"fmt"
	"html/template"
	"image/color"
	"net/http"
	"strings"

	"github.com/replaylab/replaylab/internal/solidpng"
)

// The media the sim serves: a one-second tone that a <video> element can
// play, and a 64×48 picture.
var (
	clip    = WAV(1000)
	picture = solidpng.Of(64, 48, color.RGBA{R: 40, G: 90, B: 160, A: 255})
)

// Page is one sim page for the index and the router. Files of this
// package add their pages with register in an init function.
type Page struct {
	Path    string // the mux pattern's path, e.g. "/tables"
	What    string // one line for the index
	Handler func(s *Server) http.HandlerFunc
	// Endpoint marks a route that pages call, not a page to open: the
	// index lists it without a link.
	Endpoint bool
}

// Pages lists every sim page, in registration order.
var Pages []Page

func register(p Page) { Pages = append(Pages, p) }

func init() {
	register(Page{Path: "/chat", What: "marker-style chat: earlier turns, a composer and a send button; answers stream, then complete",
		Handler: func(s *Server) http.HandlerFunc { return s.chatPage }})
}

func (s *Server) routes(mux *http.ServeMux, api http.Handler) {
	mux.HandleFunc("GET /{$}", s.index)
	for _, p := range Pages {
		mux.HandleFunc("GET "+p.Path, p.Handler(s))
	}
	mux.HandleFunc("POST /sim/chat/send", s.send)
	mux.HandleFunc("POST /sim/chat/confirm", s.confirm)
	mux.HandleFunc("POST /sim/chat/redo", s.redo)
	mux.HandleFunc("GET /sim/stage/events", s.stageEvents)
	mux.HandleFunc("POST /sim/stage/ack", s.stageAck)
	mux.HandleFunc("GET "+VideoSrc, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "audio/wav")
		_, _ = w.Write(clip)
	})
	mux.HandleFunc("GET "+ImageSrc, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(picture)
	})
	if api != nil {
		mux.Handle("/api/", api)
	}
	s.routesPatch(mux) // sign-in and the patch page's API calls (patch_session.go)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		problem(w, http.StatusNotFound, CodeNotFound, fmt.Sprintf("sim: no page at %s %s; see / for the index", r.Method, r.URL.Path))
	})
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>replaylab sim</title></head><body><h1>replaylab sim</h1><ul>")
	for _, p := range Pages {
		if p.Endpoint {
			fmt.Fprintf(&b, `<li><code>%s</code> (endpoint) — %s</li>`, p.Path, template.HTMLEscapeString(p.What))
			continue
		}
		fmt.Fprintf(&b, `<li><a href="%s">%s</a> — %s</li>`, p.Path, p.Path, template.HTMLEscapeString(p.What))
	}
	b.WriteString("</ul></body></html>")
	_, _ = w.Write([]byte(b.String()))
}
