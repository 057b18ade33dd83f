package readalong

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"sync"
)

// Key order of schemas. The go-sdk decodes a schema into a map, which loses
// the order of its keys, and a form lists its fields in the order of their
// properties. So [Schemas] remembers, from the messages read along, the
// schemas that become forms: the requested schemas of elicitations and the
// input and output schemas of listed tools. It keeps each encoded with the
// keys of every object, at every depth, in the order the server sent them,
// keyed by the schema's canonical encoding (json.Marshal of the decoded
// schema, which sorts keys). A schema the go-sdk hands over is encoded in
// the server's order when its canonical encoding is that of one
// remembered; a schema not seen (or seen only in a message too large to
// read along, or forgotten) keeps the canonical order.

// Caps on the schemas remembered.
const (
	// maxSchemaOrders is how many schemas a connection remembers; the oldest
	// are forgotten first.
	maxSchemaOrders = 1024
	// maxSchemaOrderBytes caps the encodings a connection remembers,
	// together.
	maxSchemaOrderBytes = 4 << 20
	// maxSchemaBytes caps one schema remembered.
	maxSchemaBytes = 64 << 10
)

// JSON-RPC facts the schemas are found by.
const (
	methodElicit         = "elicitation/create"
	requestedSchemaQuote = `"requestedSchema"`
	inputSchemaQuote     = `"inputSchema"` // marks a message that may list tools
)

// schemaKey is the SHA-256 of a schema's canonical encoding.
type schemaKey [sha256.Size]byte

// Schemas remembers the last schemas a server sent, in its key order, up
// to maxSchemaOrders of them and maxSchemaOrderBytes together. The zero
// value is ready; it is safe for concurrent use.
type Schemas struct {
	mu     sync.Mutex
	orders map[schemaKey]json.RawMessage // in the server's order, by the key of their canonical encoding
	// keys are the keys of orders, the oldest len(orders) before next: a
	// ring of maxSchemaOrders, grown as schemas come.
	keys []schemaKey
	next int
	size int // the bytes of orders' values
}

// Ordered encodes schema, a schema as the go-sdk decoded it, with its keys
// in the order the server sent them when that was seen, and as
// json.Marshal does otherwise. A nil schema is nil.
func (o *Schemas) Ordered(schema any) (json.RawMessage, error) {
	if schema == nil {
		return nil, nil
	}
	canonical, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	return o.inOrder(canonical), nil
}

// inOrder returns canonical, the encoding by json.Marshal of a schema, with
// its keys in the order the server sent them when that was seen, and
// canonical itself otherwise. Both are the same size.
func (o *Schemas) inOrder(canonical []byte) json.RawMessage {
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
func (o *Schemas) scan(msg []byte) {
	if !bytes.Contains(msg, []byte(requestedSchemaQuote)) && !bytes.Contains(msg, []byte(inputSchemaQuote)) {
		return
	}
	eachMessage(msg, o.scanMessage)
}

// scanMessage remembers the schemas of one JSON-RPC message: the requested
// schemas of elicitation/create requests and of the elicitation input
// requests (2026-07-28) of results, and those of listed tools.
func (o *Schemas) scanMessage(msg []byte) {
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

// scanTools remembers the input and output schemas of the tools of result,
// a JSON-RPC result that may be a tools/list result.
func (o *Schemas) scanTools(result map[string]json.RawMessage) {
	var tools []json.RawMessage
	if json.Unmarshal(result["tools"], &tools) != nil {
		return
	}
	for _, raw := range tools {
		tool := jsonObject(raw)
		o.remember(tool["inputSchema"])
		o.remember(tool["outputSchema"])
	}
}

// remember records schema, a JSON object, in the server's key order, unless
// it is over maxSchemaBytes. A schema already in canonical order is
// recorded only in place of an earlier order of the same schema.
func (o *Schemas) remember(schema json.RawMessage) {
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
func (o *Schemas) store(key schemaKey, ordered json.RawMessage, add bool) {
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
	if len(o.keys) < maxSchemaOrders {
		o.keys = append(o.keys, key) // next is len(keys) until the ring is full
	} else {
		o.keys[o.next] = key
	}
	o.next = (o.next + 1) % maxSchemaOrders
}
