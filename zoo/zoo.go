// Package zoo serves real chat UI libraries from npm, each on a small
// deterministic streaming backend that speaks the library's own wire
// protocol, so adapters for the chat UIs teams actually ship can be
// written, recorded, validated and gated in CI without any outside site.
//
// One server holds every sub-site, each under its own path:
//
//   - /aisdk/ — @ai-sdk/react useChat (React) over the AI SDK UI message
//     stream protocol (SSE with x-vercel-ai-ui-message-stream: v1). The
//     browser makes every message id: the stream's start chunk carries no
//     messageId, so ids change on every load (kind: ids made in the browser).
//   - /deepchat/ — the deep-chat web component (its prebuilt bundle), whose
//     messages live in an open shadow root, over deep-chat's streaming
//     connect protocol (SSE events of {"text"}, {"error"}) (kind: open
//     shadow roots).
//   - /chatscope/ — @chatscope/chat-ui-kit-react components over the OpenAI
//     Chat Completions streaming protocol (chat.completion.chunk events,
//     then [DONE]); its messages carry no ids, and every answer has its own
//     Copy and Regenerate (kind: no message ids, controls per answer).
//   - /nlux/ — @nlux/core's AiChat with @nlux/langchain's LangServe adapter
//     over the LangServe /stream protocol (SSE "data" events, then "end");
//     NLUX animates streamed text into the bubble after it arrives (kind: a
//     renderer that defers its text).
//
// Every answer is scripted by the sent text (Script): a normal answer, a
// long one that can be stopped ("long" in the message), an error ("error"),
// and a different answer on regenerate. Each sub-site's page, its built
// bundle and the package.json and lockfile that reproduce it are under
// zoo/<lib>/; its profile (zoo/<lib>/<lib>.json, clock page) and adapter
// (zoo/<lib>/<lib>.adapter.json) are beside them, with <lib>-wall.json for
// the wall clock. The bundles are committed and embedded: serving needs no
// npm and no network. zoo/<lib>/recordings/send holds a record --send
// session of each page, and zoo/features (recordings in zoo/recordings) is
// the zoo's scenario project, run by go test ./zoo live and replayed.
//
// It serves on 127.0.0.1 only, on a free port unless told otherwise:
//
//	go run ./cmd/replaylab zoo --addr 127.0.0.1:8710
package zoo

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"time"

	"github.com/replaylab/replaylab/internal/serve"
)

// Libs are the sub-sites, each served under /<lib>/ and named in its
// profile as zoo-<lib>.
var Libs = []string{"aisdk", "deepchat", "chatscope", "nlux"}

//go:embed aisdk/index.html aisdk/dist deepchat/index.html deepchat/dist chatscope/index.html chatscope/dist nlux/index.html nlux/dist
var assets embed.FS

// ErrNotLoopback refuses a listen address off the loopback.
var ErrNotLoopback = serve.ErrNotLoopback

// Options configure a zoo server.
type Options struct {
	// Addr is the listen address, default "127.0.0.1:0"; loopback only.
	Addr string
	// ThinkMS is how long before an answer's first words (default 300).
	ThinkMS int
	// StreamMS is how long a normal answer streams after them (default 1200);
	// a long answer streams LongStreamMS (default 6000).
	StreamMS, LongStreamMS int
}

// Server is a running zoo.
type Server struct {
	// URL is "http://127.0.0.1:PORT"; each sub-site is at URL + "/<lib>/".
	URL string

	opt Options
	srv *serve.Server
}

// Start serves the zoo until Close.
func Start(opt Options) (*Server, error) {
	if opt.ThinkMS <= 0 {
		opt.ThinkMS = 300
	}
	if opt.StreamMS <= 0 {
		opt.StreamMS = 1200
	}
	if opt.LongStreamMS <= 0 {
		opt.LongStreamMS = 6000
	}
	s := &Server{opt: opt}
	srv, err := serve.Start(opt.Addr, func(context.Context) http.Handler { return s.Handler() })
	if err != nil {
		return nil, fmt.Errorf("zoo: %w", err)
	}
	s.srv, s.URL = srv, srv.URL
	return s, nil
}

// Close stops the server and ends every stream.
func (s *Server) Close() error { return s.srv.Close() }

// Handler is the zoo's routes: every sub-site's page, bundle and API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, lib := range Libs {
		sub, err := fs.Sub(assets, lib)
		if err != nil {
			panic(err) // the embed pattern names every lib
		}
		prefix := "/" + lib + "/"
		files := http.StripPrefix(prefix, http.FileServerFS(sub))
		mux.Handle("GET "+prefix, noStore(files))
	}
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>replaylab zoo</title><h1>replaylab zoo</h1><ul>")
		for _, lib := range Libs {
			fmt.Fprintf(w, `<li><a href="/%s/">%s</a></li>`, lib, lib)
		}
		fmt.Fprint(w, "</ul>")
	})
	mux.HandleFunc("POST /aisdk/api/chat", s.aisdkChat)
	mux.HandleFunc("POST /deepchat/api/chat", s.deepchatChat)
	mux.HandleFunc("POST /chatscope/v1/chat/completions", s.chatscopeCompletions)
	mux.HandleFunc("GET /nlux/api/chat/input_schema", nluxInputSchema)
	mux.HandleFunc("POST /nlux/api/chat/stream", s.nluxStream)
	return mux
}

func noStore(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

// sleep waits d or until ctx ends; false when it ended.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// stream paces an answer's parts: the first after ThinkMS, the rest
// spread over the answer's stream time. emit writes and flushes one part;
// stream stops at the first error or when the client goes away.
func (s *Server) stream(ctx context.Context, a Answer, emit func(part string) error) error {
	total := s.opt.StreamMS
	if a.Long {
		total = s.opt.LongStreamMS
	}
	step := time.Duration(total) * time.Millisecond / time.Duration(max(1, len(a.Parts)-1))
	for i, p := range a.Parts {
		d := step
		if i == 0 {
			d = time.Duration(s.opt.ThinkMS) * time.Millisecond
		}
		if !sleep(ctx, d) {
			return ctx.Err()
		}
		if err := emit(p); err != nil {
			return err
		}
	}
	return nil
}

// flush sends what was written so far.
func flush(w http.ResponseWriter) error {
	return http.NewResponseController(w).Flush()
}

// sseHeaders are the headers of an SSE response.
func sseHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Connection", "keep-alive")
}

// ms is n milliseconds.
func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }
