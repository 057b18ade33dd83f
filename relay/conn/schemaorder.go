package conn

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io"
	"maps"
	"mime"
	"net/http"
	"sync"
)

// Property order of requested schemas. The go-sdk decodes a requested
// schema into a map, which loses the order of its properties, and a form
// lists its fields in that order. So an [http.RoundTripper] under the
// session reads along the messages the server sends (JSON bodies and event
// stream events, of either transport), without holding them back or
// changing them, and a [schemaOrders] remembers the property order of each
// requested schema it sees, keyed by the schema's canonical encoding
// (json.Marshal of the decoded schema, which sorts keys). When the go-sdk
// hands an elicitation to the connection, the schema is encoded again in
// the order the server sent; a schema not seen (or seen only in a message
// too large to read along) keeps the canonical order.

// Caps on reading along.
const (
	// maxSchemaOrders is how many property orders a connection remembers.
	maxSchemaOrders = 64
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

// schemaOrders remembers the property order of the last maxSchemaOrders
// requested schemas a connection's server sent. The zero value is ready;
// it is safe for concurrent use.
type schemaOrders struct {
	mu     sync.Mutex
	orders map[schemaKey][]string
	keys   [maxSchemaOrders]schemaKey // the keys of orders, oldest at next once full
	next   int
}

// inOrder returns canonical, the encoding by json.Marshal of schema, with
// its properties in the order the server sent them when that was seen, and
// canonical itself otherwise. Both are the same size.
func (o *schemaOrders) inOrder(canonical []byte, schema any) json.RawMessage {
	o.mu.Lock()
	names := o.orders[sha256.Sum256(canonical)]
	o.mu.Unlock()
	top, _ := schema.(map[string]any)
	props, _ := top["properties"].(map[string]any)
	if names == nil || len(names) != len(props) {
		return canonical
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, name := range names {
		v, ok := props[name]
		if !ok {
			return canonical
		}
		key, _ := json.Marshal(name) // a string always encodes
		value, err := json.Marshal(v)
		if err != nil {
			return canonical
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(value)
	}
	b.WriteByte('}')
	out := maps.Clone(top)
	out["properties"] = json.RawMessage(b.Bytes())
	raw, err := json.Marshal(out)
	if err != nil {
		return canonical
	}
	return raw
}

// scan remembers the requested schemas of msg, a JSON-RPC message or batch:
// those of elicitation/create requests and of the elicitation input
// requests (2026-07-28) of results. It does not keep msg.
func (o *schemaOrders) scan(msg []byte) {
	if !bytes.Contains(msg, []byte(requestedSchemaQuote)) {
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

// scanMessage remembers the requested schemas of one JSON-RPC message.
func (o *schemaOrders) scanMessage(msg []byte) {
	m := jsonObject(msg)
	if jsonString(m["method"]) == methodElicit {
		o.remember(jsonObject(m["params"])["requestedSchema"])
		return
	}
	for _, req := range jsonObject(jsonObject(m["result"])["inputRequests"]) {
		r := jsonObject(req)
		if jsonString(r["method"]) == methodElicit {
			o.remember(jsonObject(r["params"])["requestedSchema"])
		}
	}
}

// remember records the property order of a requested schema, unless it
// has fewer than two properties or is over maxSchemaBytes.
func (o *schemaOrders) remember(schema json.RawMessage) {
	names := propertyOrder(jsonObject(schema)["properties"])
	if len(names) < 2 {
		return
	}
	var decoded any
	if json.Unmarshal(schema, &decoded) != nil {
		return
	}
	canonical, err := json.Marshal(decoded)
	if err != nil || len(canonical) > maxSchemaBytes {
		return
	}
	key := sha256.Sum256(canonical)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.orders == nil {
		o.orders = make(map[schemaKey][]string, maxSchemaOrders)
	}
	if _, ok := o.orders[key]; !ok {
		if len(o.orders) == maxSchemaOrders {
			delete(o.orders, o.keys[o.next])
		}
		o.keys[o.next] = key
		o.next = (o.next + 1) % maxSchemaOrders
	}
	o.orders[key] = names
}

// propertyOrder returns the keys of the JSON object props in document
// order, each once; nil when props is not an object.
func propertyOrder(props json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(props))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var names []string
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		name, _ := tok.(string) // object keys are strings
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names
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
