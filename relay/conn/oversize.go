package conn

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
)

// An answer over the transport's limit costs its call only: the relay stops
// reading it, answers the go-sdk in the server's place with a JSON-RPC
// error for that call, and notes on the call's context that it did, so the
// call fails as [TooLarge] and the connection, and every other call on it,
// goes on. The go-sdk on its own fails the whole connection.

// refusedEvent names the event that ends an oversized event on the stream:
// the go-sdk skips events not named "message".
const refusedEvent = "event: switchboard-refused\n"

// refusalRoom is what a cut event may grow by (its line's end, the
// refusedEvent line and the blank line after it), so that the go-sdk's own
// cap on an event, the same limit, is never reached.
const refusalRoom = 64

// oversizeNote is set when the transport refused an answer of the call whose
// context carries it.
type oversizeNote struct{ refused atomic.Bool }

type oversizeKey struct{}

// withOversizeNote returns ctx carrying a fresh note.
func withOversizeNote(ctx context.Context) (context.Context, *oversizeNote) {
	n := &oversizeNote{}
	return context.WithValue(ctx, oversizeKey{}, n), n
}

// refusal notes on req's context that its answer was refused and returns
// the JSON-RPC error answering req, or nil when req is not a call.
func refusal(req *http.Request, limit int64) []byte {
	if n, ok := req.Context().Value(oversizeKey{}).(*oversizeNote); ok {
		n.refused.Store(true)
	}
	id := callID(req)
	if id == nil {
		return nil
	}
	b, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error": map[string]any{
			"code":    -32603,
			"message": fmt.Sprintf("the relay refused an answer over %d bytes", limit),
		},
	})
	if err != nil {
		return nil
	}
	return b
}

// callID is the JSON-RPC id of the call req posts, or nil.
func callID(req *http.Request) json.RawMessage {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil
	}
	defer body.Close()
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.NewDecoder(body).Decode(&m) != nil || m.Method == "" || len(m.ID) == 0 || string(m.ID) == "null" {
		return nil
	}
	return m.ID
}

// eventLimiter passes a call's event stream through until one event is over
// limit bytes. Then it ends that event under [refusedEvent], adds the
// refusal of the call as the next event, and ends the stream without
// reading the rest.
type eventLimiter struct {
	io.ReadCloser
	req     *http.Request
	limit   int64
	event   int64 // bytes of the current event so far
	line    int64 // bytes of the current line so far
	content bool  // the current line has more than line ends
	refused bool
	tail    []byte // what is left to give after the refusal
}

func (l *eventLimiter) Read(p []byte) (int, error) {
	if l.refused {
		if len(l.tail) == 0 {
			return 0, io.EOF
		}
		n := copy(p, l.tail)
		l.tail = l.tail[n:]
		return n, nil
	}
	n, err := l.ReadCloser.Read(p)
	for i, c := range p[:n] {
		l.event++
		if l.event > l.limit {
			l.refuse()
			return i, nil
		}
		switch c {
		case '\n': // the go-sdk ends lines at \n only, trimming any \r
			if !l.content {
				l.event = 0 // a blank line ends the event
			}
			l.line, l.content = 0, false
		case '\r':
			l.line++
		default:
			l.line++
			l.content = true
		}
	}
	return n, err
}

func (l *eventLimiter) refuse() {
	l.refused = true
	if l.line > 0 {
		// A colon keeps a cut field name a line the go-sdk accepts.
		l.tail = append(l.tail, ":\n"...)
	}
	l.tail = append(l.tail, refusedEvent+"\n"...)
	if answer := refusal(l.req, l.limit); answer != nil {
		l.tail = append(l.tail, "data: "...)
		l.tail = append(l.tail, answer...)
		l.tail = append(l.tail, "\n\n"...)
	}
}

// callBody reads a call's whole answer at its first read, up to limit
// bytes; a longer one is given as the refusal of the call instead, and an
// answer to anything else fails the read.
type callBody struct {
	io.ReadCloser
	req   *http.Request
	limit int64
	read  bool
	rest  []byte
	err   error
}

func (b *callBody) Read(p []byte) (int, error) {
	if !b.read {
		b.read = true
		b.rest, b.err = io.ReadAll(io.LimitReader(b.ReadCloser, b.limit+1))
		if b.err == nil {
			b.err = io.EOF
		}
		if int64(len(b.rest)) > b.limit {
			b.rest = refusal(b.req, b.limit)
			if b.rest == nil {
				b.err = errBodyTooLarge
			}
		}
	}
	if len(b.rest) == 0 {
		return 0, b.err
	}
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	return n, nil
}
