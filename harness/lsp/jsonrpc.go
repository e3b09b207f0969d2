package lsp

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
)

// The transport: JSON-RPC 2.0 messages, each preceded by a
// "Content-Length: N" header and an empty line, as the base protocol of
// LSP says. A Conn reads messages one at a time and writes them whole under
// a lock, so replies and notifications never interleave.

// MessageBytesMax bounds one incoming message; a larger one is refused
// before it is read.
const MessageBytesMax = 64 << 20

// JSON-RPC and LSP error codes the server answers with.
const (
	CodeParseError           = -32700
	CodeInvalidRequest       = -32600
	CodeMethodNotFound       = -32601
	CodeInvalidParams        = -32602
	CodeInternalError        = -32603
	CodeServerNotInitialized = -32002
	CodeRequestCancelled     = -32800
)

// ErrFraming is what a malformed header or an oversized message wraps: the
// stream cannot be read any further.
var ErrFraming = errors.New("lsp: bad message framing")

// message is any JSON-RPC message: a request (ID and Method), a
// notification (Method, no ID) or a response (ID, Result or Error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *ResponseError  `json:"error,omitempty"`
}

func (m *message) isRequest() bool      { return m.Method != "" && len(m.ID) > 0 }
func (m *message) isNotification() bool { return m.Method != "" && len(m.ID) == 0 }

// ResponseError is the error member of a response.
type ResponseError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *ResponseError) Error() string { return fmt.Sprintf("lsp: error %d: %s", e.Code, e.Message) }

// Conn is one end of an LSP stream.
type Conn struct {
	r  *bufio.Reader
	mu sync.Mutex
	w  io.Writer
}

// NewConn reads messages from r and writes them to w.
func NewConn(r io.Reader, w io.Writer) *Conn {
	return &Conn{r: bufio.NewReader(r), w: w}
}

// read returns the next message. io.EOF means the stream ended between
// messages; a framing problem wraps ErrFraming; a body that is not JSON is
// returned as a *ResponseError with CodeParseError (the stream goes on).
func (c *Conn) read() (*message, error) {
	tp := textproto.NewReader(c.r)
	length := -1
	first := true
	for {
		line, err := tp.ReadLine()
		if err != nil {
			if errors.Is(err, io.EOF) && first {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("%w: reading the header: %w", ErrFraming, err)
		}
		first = false
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%w: header line %q has no colon", ErrFraming, line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%w: Content-Length %q", ErrFraming, value)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: no Content-Length header", ErrFraming)
	}
	if length > MessageBytesMax {
		return nil, fmt.Errorf("%w: a message of %d bytes (at most %d)", ErrFraming, length, MessageBytesMax)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(c.r, body); err != nil {
		return nil, fmt.Errorf("%w: reading a body of %d bytes: %w", ErrFraming, length, err)
	}
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, &ResponseError{Code: CodeParseError, Message: err.Error()}
	}
	return &m, nil
}

// write sends one message.
func (c *Conn) write(m *message) error {
	m.JSONRPC = "2.0"
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("lsp: encode %s: %w", m.Method, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	_, err = c.w.Write(body)
	return err
}

// notify sends a notification.
func (c *Conn) notify(method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("lsp: encode %s: %w", method, err)
	}
	return c.write(&message{Method: method, Params: raw})
}

// reply answers the request with id.
func (c *Conn) reply(id json.RawMessage, result any, rerr *ResponseError) error {
	m := &message{ID: id}
	if rerr != nil {
		m.Error = rerr
	} else {
		raw, err := json.Marshal(result)
		if err != nil {
			return c.write(&message{ID: id, Error: &ResponseError{Code: CodeInternalError, Message: err.Error()}})
		}
		m.Result = raw
	}
	return c.write(m)
}
