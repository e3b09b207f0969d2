package sim

import "net/http"

// NewConns is how many of the server's connections have not started a
// request, for tests that must know the server accepted them.
func (s *Server) NewConns() int {
	s.conns.mu.Lock()
	defer s.conns.mu.Unlock()
	n := 0
	for _, st := range s.conns.state {
		if st == http.StateNew {
			n++
		}
	}
	return n
}
