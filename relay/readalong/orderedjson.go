package readalong

import (
	"bytes"
	"encoding/json"
	"errors"
)

// orderedObject is a decoded JSON object that keeps the order of its keys:
// each key where it first appears, with the value it last has (as a
// browser's JSON.parse does, and with the same value as the go-sdk's maps).
type orderedObject struct {
	keys   []string
	values map[string]any
}

// errNotJSON is a token stream that is not one JSON value.
var errNotJSON = errors.New("not a JSON value")

// encodeInOrder encodes raw, a JSON value, as json.Marshal encodes its
// decoding, except that every object, at every depth, keeps the order of
// its keys in raw. raw must be valid JSON within json.Unmarshal's nesting
// limit: the depth of the recursion is not checked here.
func encodeInOrder(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	v, err := decodeOrdered(dec)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := writeOrdered(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// decodeOrdered decodes the next value of dec: objects as *orderedObject,
// arrays as []any, the rest as json.Unmarshal decodes them into any.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := &orderedObject{values: make(map[string]any)}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, _ := tok.(string) // object keys are strings
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			if _, seen := o.values[key]; !seen {
				o.keys = append(o.keys, key)
			}
			o.values[key] = v
		}
		_, err := dec.Token() // '}'
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token() // ']'
		return a, err
	case json.Delim('}'), json.Delim(']'):
		return nil, errNotJSON
	}
	return tok, nil
}

// writeOrdered writes v, decoded by decodeOrdered, to b.
func writeOrdered(b *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case *orderedObject:
		b.WriteByte('{')
		for i, key := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(key) // a string always encodes
			b.Write(k)
			b.WriteByte(':')
			if err := writeOrdered(b, v.values[key]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeOrdered(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		leaf, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(leaf)
	}
	return nil
}
