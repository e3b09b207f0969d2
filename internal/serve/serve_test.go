package serve

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
)

func TestLoopback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, addr string
		want       error
	}{
		{"IPv4 loopback", "127.0.0.1:0", nil},
		{"IPv6 loopback", "[::1]:8080", nil},
		{"every interface", "0.0.0.0:0", ErrNotLoopback},
		{"a host name", "localhost:0", ErrNotLoopback},
		{"a LAN address", "192.168.1.2:80", ErrNotLoopback},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if err := Loopback(tc.addr); !errors.Is(err, tc.want) {
				t.Fatalf("Loopback(%q) = %v, want %v", tc.addr, err, tc.want)
			}
		})
	}
	if err := Loopback("no port"); err == nil || errors.Is(err, ErrNotLoopback) {
		t.Fatalf("an address without a port: %v, want a parse error", err)
	}
}

// TestStartClose: a request is served on the default address, its context
// is the base one, and Close cancels that while the request is in flight.
func TestStartClose(t *testing.T) {
	t.Parallel()
	entered := make(chan struct{})
	ended := make(chan error, 1)
	s, err := Start("", func(base context.Context) http.Handler {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /hello", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "hi") })
		mux.HandleFunc("GET /hold", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			close(entered)
			<-r.Context().Done()
			ended <- base.Err()
		})
		return mux
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(s.URL + "/hello")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != "hi" {
		t.Fatalf("got %q, want hi", b)
	}
	hold, err := http.Get(s.URL + "/hold")
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Body.Close()
	<-entered
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("the base context at the end of the request: %v, want canceled", err)
	}
}

func TestStartRefusesOffLoopback(t *testing.T) {
	t.Parallel()
	_, err := Start("0.0.0.0:0", func(context.Context) http.Handler { return http.NotFoundHandler() })
	if !errors.Is(err, ErrNotLoopback) {
		t.Fatalf("err %v, want ErrNotLoopback", err)
	}
}
