// Command serve runs the test site (package testsite) until interrupted:
//
//	go run ./testsite/serve --addr 127.0.0.1:8700
//
// testsite/testsite.json is its site profile; the chat app at /app/ has
// testsite/chatapp.json.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/replaylab/replaylab/testsite"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8700", "listen address (loopback only)")
	flag.Parse()
	s, err := testsite.Start(testsite.Options{Addr: *addr})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println("testsite: serving", s.URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	_ = s.Close()
}
