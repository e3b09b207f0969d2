package browser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/internal/testskip"
)

// isolationState is every kind of state a page can leave in its browser
// context: set writes it, get reads it back ("" and the like when absent).
var isolationState = []struct {
	name, set, get, empty string
}{
	{name: "cookie set by script", set: `document.cookie = "js=1; max-age=3600", "ok"`, get: `document.cookie`, empty: ""},
	{name: "HttpOnly cookie set by the server", set: `fetch("/set-cookie").then(() => "ok")`, get: `fetch("/echo-cookie").then(r => r.text())`, empty: ""},
	{name: "local storage", set: `localStorage.setItem("k", "v"), "ok"`, get: `String(localStorage.getItem("k"))`, empty: "null"},
	{name: "IndexedDB", set: `new Promise((ok, ko) => { const o = indexedDB.open("db", 1); o.onupgradeneeded = () => o.result.createObjectStore("s"); o.onerror = ko;
		o.onsuccess = () => { const tx = o.result.transaction("s", "readwrite"); tx.objectStore("s").put("v", "k"); tx.oncomplete = () => { o.result.close(); ok("ok") }; tx.onerror = ko } })`,
		get: `indexedDB.databases().then(ds => ds.map(d => d.name).join(","))`, empty: ""},
	{name: "Cache Storage", set: `caches.open("c").then(c => c.put("/k", new Response("v"))).then(() => "ok")`, get: `caches.keys().then(k => k.join(","))`, empty: ""},
	{name: "service worker", set: `navigator.serviceWorker.register("/sw.js").then(() => navigator.serviceWorker.ready).then(() => "ok")`,
		get: `navigator.serviceWorker.getRegistrations().then(r => String(r.length))`, empty: "0"},
	{name: "HTTP cache", set: `fetch("/cached").then(r => r.text())`, get: `fetch("/cached").then(r => r.text())`, empty: "fresh"},
	{name: "permission", get: `navigator.permissions.query({name: "geolocation"}).then(s => s.state)`, empty: "prompt"},
	{name: "session storage", set: `sessionStorage.setItem("k", "v"), "ok"`, get: `String(sessionStorage.getItem("k"))`, empty: "null"},
}

// isolationServer serves the page, a service worker, cookies and a
// response the HTTP cache keeps; /cached answers "cached" the first time
// and "fresh" after, so a second answer of "cached" came from the cache.
func isolationServer(t *testing.T) *httptest.Server {
	t.Helper()
	var cached atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!doctype html><title>isolation</title><p>page</p>`)
		case "/sw.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `self.addEventListener("fetch", () => {});`)
		case "/set-cookie":
			http.SetCookie(w, &http.Cookie{Name: "server", Value: "1", Path: "/", HttpOnly: true, MaxAge: 3600})
		case "/echo-cookie":
			if c, err := r.Cookie("server"); err == nil {
				fmt.Fprint(w, c.Value)
			}
		case "/cached":
			w.Header().Set("Cache-Control", "max-age=3600")
			if cached.Add(1) == 1 {
				fmt.Fprint(w, "cached")
			} else {
				fmt.Fprint(w, "fresh")
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestReusedContextIsolation: with ReuseContexts a page gets the browser
// context an earlier page closed, and none of the state the earlier page
// left there (each kind of isolationState); a page whose context cannot be
// cleared for sure (it opened a popup) does not pass its context on.
func TestReusedContextIsolation(t *testing.T) {
	path, err := browser.FindHeadless()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %v", err)
		}
		testskip.Skip(t, "SKIPPING browser tests: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := browser.Start(ctx, browser.Options{ExecPath: path, ReuseContexts: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	srv := isolationServer(t)
	eval := func(t *testing.T, p *browser.Page, expr string) string {
		t.Helper()
		out, err := p.EvalForTest(ctx, expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		var s string
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("%s = %s: want a string: %v", expr, out, err)
		}
		return s
	}

	first, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if err := first.GrantForTest(ctx, srv.URL, "geolocation"); err != nil {
		t.Fatal(err)
	}
	for _, st := range isolationState {
		t.Run("set/"+st.name, func(t *testing.T) {
			if st.set != "" {
				eval(t, first, st.set)
			}
			if got := eval(t, first, st.get); got == st.empty {
				t.Fatalf("the state was not set: %s = %q", st.get, got)
			}
		})
	}
	ctxID := first.ContextIDForTest()
	_ = first.Close()
	b.WaitRecycledForTest()

	second, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := second.ContextIDForTest(); got != ctxID {
		t.Fatalf("the second page has context %s, not the first page's %s: nothing was reused (stats %+v)", got, ctxID, b.ContextStats())
	}
	if err := second.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	for _, st := range isolationState {
		t.Run("cleared/"+st.name, func(t *testing.T) {
			if got := eval(t, second, st.get); got != st.empty {
				t.Fatalf("the next page sees the earlier page's state: %s = %q, want %q", st.get, got, st.empty)
			}
		})
	}

	t.Run("a popup keeps its context from reuse", func(t *testing.T) {
		// window.open returns once the browser made the popup's tab
		if got := eval(t, second, `window.open("/") ? "opened" : "blocked"`); got != "opened" {
			t.Fatalf("window.open: %s", got)
		}
		before := b.ContextStats()
		ctxID := second.ContextIDForTest()
		_ = second.Close()
		b.WaitRecycledForTest()
		if got := b.ContextStats(); got.NotReused != before.NotReused+1 {
			t.Fatalf("stats %+v after %+v: the context with a popup was reused", got, before)
		}
		third, err := b.NewPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer third.Close()
		if third.ContextIDForTest() == ctxID {
			t.Fatalf("the page after the popup got its context %s", ctxID)
		}
		if !strings.HasPrefix(eval(t, third, `location.href`), "about:blank") {
			t.Fatal("a new page is not blank")
		}
	})
}
