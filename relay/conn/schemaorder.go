package conn

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"sync"
)

// Key order of schemas. The go-sdk decodes a schema into a map, which loses
// the order of its keys, and a form lists its fields in the order of their
// properties. So an [http.RoundTripper] under the session reads along the
// messages the server sends (JSON bodies and event stream events, of either
// transport; stdio.go does the same for a process), without holding them
// back or changing them, and a [schemaOrders] remembers the schemas that
// become forms: the requested schemas of elicitations and the input and
// output schemas of listed tools (toolorder.go). It keeps each encoded with
// the keys of every object, at every depth, in the order the server sent
// them, keyed by the schema's canonical encoding (json.Marshal of the
// decoded schema, which sorts keys). When the go-sdk hands the connection
// an elicitation or a tool list, a schema whose canonical encoding is that
// of one remembered is encoded in the server's order; a schema not seen
// (or seen only in a message too large to read along, or forgotten) keeps
// the canonical order.

// Caps on reading along.
const (
	// maxSchemaOrders is how many schemas a connection remembers; the oldest
	// are forgotten first.
	maxSchemaOrders = 1024
	// maxSchemaOrderBytes caps the encodings a connection remembers,
	// together.
	maxSchemaOrderBytes = 4 << 20
	// maxOrderScanBytes caps a message (a JSON body or an event's data)
	// read along; a larger one passes unread.
	maxOrderScanBytes = 1 << 20
	// keepScanBytes is the largest buffer an event stream keeps between
	// events.
	keepScanBytes = 64 << 10
)

// JSON-RPC facts the read-along looks for.
const (
	methodElicit         = "elicitation/create"
	mediaTypeJSON        = "application/json"
	requestedSchemaQuote = `"requestedSchema"`
)

// schemaKey is the SHA-256 of a schema's canonical encoding.
type schemaKey [sha256.Size]byte

// schemaOrders remembers the last schemas a connection's server sent, in
// its key order, up to maxSchemaOrders of them and maxSchemaOrderBytes
// together. The zero value is ready; it is safe for concurrent use.
type schemaOrders struct {
	mu     sync.Mutex
	orders map[schemaKey]json.RawMessage // in the server's order, by the key of their canonical encoding
	keys   [maxSchemaOrders]schemaKey    // the keys of orders, the oldest len(orders) before next
	next   int
	size   int // the bytes of orders' values
}

// inOrder returns canonical, the encoding by json.Marshal of a schema, with
// its keys in the order the server sent them when that was seen, and
// canonical itself otherwise. Both are the same size.
func (o *schemaOrders) inOrder(canonical []byte) json.RawMessage {
	if len(canonical) == 0 {
		return canonical
	}
	o.mu.Lock()
	ordered := o.orders[sha256.Sum256(canonical)]
	o.mu.Unlock()
	if ordered == nil {
		return canonical
	}
	return ordered
}

// scan remembers the schemas of msg, a JSON-RPC message or batch, that
// become forms. It does not keep msg.
func (o *schemaOrders) scan(msg []byte) {
	if !bytes.Contains(msg, []byte(requestedSchemaQuote)) && !bytes.Contains(msg, []byte(inputSchemaQuote)) {
		return
	}
	if trimmed := bytes.TrimLeft(msg, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '[' {
		o.scanMessage(msg)
		return
	}
	var batch []json.RawMessage
	if json.Unmarshal(msg, &batch) != nil {
		return
	}
	for _, m := range batch {
		o.scanMessage(m)
	}
}

// scanMessage remembers the schemas of one JSON-RPC message: the requested
// schemas of elicitation/create requests and of the elicitation input
// requests (2026-07-28) of results, and those of listed tools.
func (o *schemaOrders) scanMessage(msg []byte) {
	m := jsonObject(msg)
	if jsonString(m["method"]) == methodElicit {
		o.remember(jsonObject(m["params"])["requestedSchema"])
		return
	}
	result := jsonObject(m["result"])
	for _, req := range jsonObject(result["inputRequests"]) {
		r := jsonObject(req)
		if jsonString(r["method"]) == methodElicit {
			o.remember(jsonObject(r["params"])["requestedSchema"])
		}
	}
	o.scanTools(result)
}

// remember records schema, a JSON object, in the server's key order, unless
// it is over maxSchemaBytes. A schema already in canonical order is
// recorded only in place of an earlier order of the same schema.
func (o *schemaOrders) remember(schema json.RawMessage) {
	var decoded any
	if json.Unmarshal(schema, &decoded) != nil {
		return
	}
	if _, ok := decoded.(map[string]any); !ok {
		return
	}
	canonical, err := json.Marshal(decoded)
	if err != nil || len(canonical) > maxSchemaBytes {
		return
	}
	ordered, err := encodeInOrder(schema)
	if err != nil || !sameSchema(ordered, canonical) {
		return
	}
	o.store(sha256.Sum256(canonical), ordered, !bytes.Equal(ordered, canonical))
}

// sameSchema reports whether ordered decodes to the schema whose canonical
// encoding is canonical.
func sameSchema(ordered, canonical []byte) bool {
	var decoded any
	if json.Unmarshal(ordered, &decoded) != nil {
		return false
	}
	again, err := json.Marshal(decoded)
	return err == nil && bytes.Equal(again, canonical)
}

// store records ordered under key: in place of what key has, or, when add
// is set, as the newest, forgetting the oldest as the caps require.
func (o *schemaOrders) store(key schemaKey, ordered json.RawMessage, add bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.orders[key]; ok {
		o.orders[key] = ordered // the same schema: the same size
		return
	}
	if !add {
		return
	}
	if o.orders == nil {
		o.orders = make(map[schemaKey]json.RawMessage)
	}
	for len(o.orders) == maxSchemaOrders || (len(o.orders) > 0 && o.size+len(ordered) > maxSchemaOrderBytes) {
		oldest := o.keys[(o.next-len(o.orders)+maxSchemaOrders)%maxSchemaOrders]
		o.size -= len(o.orders[oldest])
		delete(o.orders, oldest)
	}
	o.orders[key] = ordered
	o.size += len(ordered)
	o.keys[o.next] = key
	o.next = (o.next + 1) % maxSchemaOrders
}

// jsonObject decodes raw as a JSON object, member by member; nil when it is
// not one. Like the go-sdk's maps, a repeated key keeps its last value.
func jsonObject(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// jsonString decodes raw as a JSON string; "" when it is not one.
func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// tee returns a copy of hc whose transport shows o, and each of also, the
// messages of every successful JSON or event stream response; it also shows
// calls (when not nil) the server requests read on the response stream of
// each call, so that they can be attributed to it (see caller.go).
func (o *schemaOrders) tee(hc *http.Client, calls *callRegistry, also ...func(msg []byte)) *http.Client {
	scan := func(msg []byte) {
		o.scan(msg)
		for _, f := range also {
			f(msg)
		}
	}
	return wrapTransport(hc, func(base http.RoundTripper) http.RoundTripper {
		return &orderTee{base: base, scan: scan, calls: calls}
	})
}

// orderTee is the RoundTripper that reads along response bodies for
// schemaOrders and the call registry.
type orderTee struct {
	base  http.RoundTripper
	scan  func(msg []byte)
	calls *callRegistry // nil: no attribution
}

// RoundTrip implements [http.RoundTripper].
func (t *orderTee) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	see := t.scan
	if id, ok := callIDOf(req.Context()); ok && t.calls != nil {
		see = func(msg []byte) {
			t.scan(msg)
			t.calls.scan(id, msg)
		}
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get(headerContentType))
	switch mediaType {
	case mediaTypeJSON:
		resp.Body = &scannedBody{ReadCloser: resp.Body, scanner: &jsonScanner{scan: see}}
	case eventStreamType:
		resp.Body = &scannedBody{ReadCloser: resp.Body, scanner: newEventScanner(see)}
	}
	return resp, nil
}

// messageScanner finds the messages of a body read in pieces.
type messageScanner interface {
	feed(p []byte) // the next bytes read
	end()          // the body ended (EOF)
}

// scannedBody shows its scanner what is read from it, before the reader
// gets it, and leaves the bytes as they are.
type scannedBody struct {
	io.ReadCloser
	scanner messageScanner
	done    bool // the body failed or ended: nothing more to scan
}

func (b *scannedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.done {
		return n, err
	}
	b.scanner.feed(p[:n])
	if err != nil {
		b.done = true
		if err == io.EOF {
			b.scanner.end()
		}
	}
	return n, err
}

// jsonScanner reads along a JSON body: one message or batch.
type jsonScanner struct {
	scan func(msg []byte)
	buf  []byte
	over bool // the body is over maxOrderScanBytes
}

func (s *jsonScanner) feed(p []byte) {
	if s.over {
		return
	}
	if len(s.buf)+len(p) > maxOrderScanBytes {
		s.over, s.buf = true, nil
		return
	}
	s.buf = append(s.buf, p...)
}

func (s *jsonScanner) end() {
	if !s.over {
		s.scan(s.buf)
	}
	s.buf = nil
}

// eventScanner reads along an event stream, splitting it as the go-sdk
// does: lines end at '\n' and lose trailing '\r's, a blank line ends an
// event, data fields are trimmed and joined with '\n', and the stream's end
// ends its last event.
type eventScanner struct {
	scan   func(msg []byte)
	line   []byte // the current line so far, unless skipping
	blank  bool   // the current line so far is only '\r's
	data   []byte // the current event's data
	inData bool   // the current event has a data field
	skip   bool   // the current event is over maxOrderScanBytes: unread to its end
}

func newEventScanner(scan func(msg []byte)) *eventScanner {
	return &eventScanner{scan: scan, blank: true}
}

func (s *eventScanner) feed(p []byte) {
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.add(p)
			return
		}
		s.add(p[:i])
		s.endLine()
		p = p[i+1:]
	}
}

func (s *eventScanner) end() {
	if !s.blank {
		s.endLine()
	}
	s.endEvent()
}

// add appends part of a line.
func (s *eventScanner) add(part []byte) {
	if s.blank && len(bytes.TrimLeft(part, "\r")) > 0 {
		s.blank = false
	}
	if s.skip {
		return
	}
	if len(s.data)+len(s.line)+len(part) > maxOrderScanBytes {
		s.skip = true
		s.line, s.data = nil, nil
		return
	}
	s.line = append(s.line, part...)
}

// endLine handles the line read: a field, or the end of the event.
func (s *eventScanner) endLine() {
	blank, line := s.blank, bytes.TrimRight(s.line, "\r")
	s.blank = true
	if blank {
		s.line = s.line[:0]
		s.endEvent()
		return
	}
	if name, value, ok := bytes.Cut(line, []byte{':'}); ok && !s.skip && string(name) == "data" {
		if s.inData {
			s.data = append(s.data, '\n')
		}
		s.data = append(s.data, bytes.TrimSpace(value)...)
		s.inData = true
	}
	s.line = s.line[:0]
}

// endEvent scans the event read, unless it was skipped, and starts the next.
func (s *eventScanner) endEvent() {
	if !s.skip && s.inData {
		s.scan(s.data)
	}
	s.data, s.inData, s.skip = s.data[:0], false, false
	if cap(s.data) > keepScanBytes {
		s.data = nil
	}
	if cap(s.line) > keepScanBytes {
		s.line = nil
	}
}
