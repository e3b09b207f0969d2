package mcp

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DropCancelled wraps a transport so that a request the client cancelled
// (notifications/cancelled) gets no response: the MCP specification asks
// the receiver of a cancellation not to answer the cancelled request, and
// the SDK's server writes the handler's result whatever happened to its
// context. Server.Run applies it to every transport.
func DropCancelled(t mcpsdk.Transport) mcpsdk.Transport { return dropCancelled{t} }

type dropCancelled struct{ next mcpsdk.Transport }

func (d dropCancelled) Connect(ctx context.Context) (mcpsdk.Connection, error) {
	c, err := d.next.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &cancelConn{Connection: c, cancelled: map[any]bool{}}, nil
}

// cancelConn remembers the ids of cancelled requests as it reads the
// notifications and drops their responses as they are written.
type cancelConn struct {
	mcpsdk.Connection
	mu        sync.Mutex
	cancelled map[any]bool
}

// cancelIDs bounds the ids remembered; the oldest are forgotten first
// (a response comes soon after its cancellation or never).
const cancelIDs = 1024

func (c *cancelConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if req, ok := m.(*jsonrpc.Request); ok && err == nil && !req.IsCall() && req.Method == "notifications/cancelled" {
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil && p.RequestID != nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
				c.mu.Lock()
				if len(c.cancelled) >= cancelIDs {
					clear(c.cancelled)
				}
				c.cancelled[id.Raw()] = true
				c.mu.Unlock()
			}
		}
	}
	return m, err
}

func (c *cancelConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Response); ok {
		c.mu.Lock()
		drop := c.cancelled[r.ID.Raw()]
		delete(c.cancelled, r.ID.Raw())
		c.mu.Unlock()
		if drop {
			return nil
		}
	}
	return c.Connection.Write(ctx, m)
}
