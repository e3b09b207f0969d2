package testsite

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// A minimal WebSocket server side (RFC 6455), enough for the chat app's
// WebSocket variant: the handshake, unmasked text frames to the client, and
// a reader of the client's masked frames that notices a close. No
// extensions, no fragmentation of what it sends.

// wsGUID is the key suffix of RFC 6455 section 1.3.
const wsGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// wsFrameBytesMax bounds a frame read from the client.
const wsFrameBytesMax = 64 << 10

// WebSocket opcodes.
const (
	wsText  = 0x1
	wsClose = 0x8
	wsPing  = 0x9
	wsPong  = 0xA
)

var errNotWebSocket = errors.New("testsite: not a websocket handshake")

// wsConn is one accepted WebSocket.
type wsConn struct {
	c  net.Conn
	br *bufio.Reader
	mu sync.Mutex // serialises writes
}

// wsAccept answers the opening handshake and takes the connection over.
func wsAccept(w http.ResponseWriter, r *http.Request) (*wsConn, error) {
	if !headerHas(r.Header, "Connection", "upgrade") || !headerHas(r.Header, "Upgrade", "websocket") {
		return nil, errNotWebSocket
	}
	key := r.Header.Get("Sec-WebSocket-Key")
	if key == "" || r.Header.Get("Sec-WebSocket-Version") != "13" {
		return nil, fmt.Errorf("%w: want Sec-WebSocket-Key and version 13", errNotWebSocket)
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		return nil, fmt.Errorf("%w: the connection cannot be taken over", errNotWebSocket)
	}
	c, brw, err := hj.Hijack()
	if err != nil {
		return nil, fmt.Errorf("testsite: websocket: %w", err)
	}
	sum := sha1.Sum([]byte(key + wsGUID))
	accept := base64.StdEncoding.EncodeToString(sum[:])
	resp := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + accept + "\r\n\r\n"
	if _, err := brw.WriteString(resp); err != nil {
		c.Close()
		return nil, fmt.Errorf("testsite: websocket: %w", err)
	}
	if err := brw.Flush(); err != nil {
		c.Close()
		return nil, fmt.Errorf("testsite: websocket: %w", err)
	}
	return &wsConn{c: c, br: brw.Reader}, nil
}

func headerHas(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// writeFrame sends one unmasked frame with FIN set.
func (ws *wsConn) writeFrame(op byte, payload []byte) error {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	hdr := []byte{0x80 | op}
	switch n := len(payload); {
	case n <= 125:
		hdr = append(hdr, byte(n))
	case n <= 0xFFFF:
		hdr = append(hdr, 126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	if _, err := ws.c.Write(append(hdr, payload...)); err != nil {
		return fmt.Errorf("testsite: websocket write: %w", err)
	}
	return nil
}

// WriteText sends a text message.
func (ws *wsConn) WriteText(s string) error { return ws.writeFrame(wsText, []byte(s)) }

// Close sends a normal close frame and closes the connection.
func (ws *wsConn) Close() error {
	_ = ws.writeFrame(wsClose, []byte{0x03, 0xE8}) // 1000: normal closure
	return ws.c.Close()
}

// readFrame reads one frame from the client (clients mask every frame).
func (ws *wsConn) readFrame() (op byte, payload []byte, err error) {
	var h [2]byte
	if _, err := io.ReadFull(ws.br, h[:]); err != nil {
		return 0, nil, err
	}
	op = h[0] & 0x0F
	masked := h[1]&0x80 != 0
	n := uint64(h[1] & 0x7F)
	switch n {
	case 126:
		var b [2]byte
		if _, err := io.ReadFull(ws.br, b[:]); err != nil {
			return 0, nil, err
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err := io.ReadFull(ws.br, b[:]); err != nil {
			return 0, nil, err
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	if n > wsFrameBytesMax {
		return 0, nil, fmt.Errorf("testsite: websocket frame of %d bytes, more than %d", n, wsFrameBytesMax)
	}
	var mask [4]byte
	if masked {
		if _, err := io.ReadFull(ws.br, mask[:]); err != nil {
			return 0, nil, err
		}
	}
	payload = make([]byte, n)
	if _, err := io.ReadFull(ws.br, payload); err != nil {
		return 0, nil, err
	}
	if masked {
		for i := range payload {
			payload[i] ^= mask[i%4]
		}
	}
	return op, payload, nil
}

// waitClose reads the client's frames until it closes (or the connection
// fails), answering pings; it returns then.
func (ws *wsConn) waitClose() {
	for {
		op, p, err := ws.readFrame()
		if err != nil {
			return
		}
		switch op {
		case wsClose:
			return
		case wsPing:
			_ = ws.writeFrame(wsPong, p)
		}
	}
}
