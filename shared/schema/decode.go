package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// maxCount is the largest length or item count a schema may set.
const maxCount = math.MaxInt32

var errNotObject = errors.New("must be a JSON object")

// object decodes raw as a JSON object, keyword by keyword.
func object(raw json.RawMessage) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj == nil {
		return nil, errNotObject
	}
	return obj, nil
}

// member is one key and value of a JSON object.
type member struct {
	key   string
	value json.RawMessage
}

// members decodes raw as a JSON object and keeps its members in document
// order, duplicates included.
func members(raw json.RawMessage) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errNotObject
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("decode: %w", err)
		}
		key, _ := tok.(string) // object keys are always strings
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, fmt.Errorf("decode %q: %w", key, err)
		}
		out = append(out, member{key: key, value: value})
	}
	return out, nil
}

// stringKeyword reads an optional string keyword.
func stringKeyword(obj map[string]json.RawMessage, key string) (string, bool, error) {
	raw, ok := obj[key]
	if !ok {
		return "", false, nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false, fmt.Errorf("%q must be a string", key)
	}
	return s, true, nil
}

// numberKeyword reads an optional number keyword.
func numberKeyword(obj map[string]json.RawMessage, key string) (*float64, error) {
	raw, ok := obj[key]
	if !ok {
		return nil, nil
	}
	var x float64
	if json.Unmarshal(raw, &x) != nil {
		return nil, fmt.Errorf("%q must be a number", key)
	}
	return &x, nil
}

// countKeyword reads an optional non-negative whole number keyword.
func countKeyword(obj map[string]json.RawMessage, key string) (*int, error) {
	x, err := numberKeyword(obj, key)
	if err != nil || x == nil {
		return nil, err
	}
	if *x < 0 || *x > maxCount || *x != math.Trunc(*x) {
		return nil, fmt.Errorf("%q must be a whole number from 0 to %d", key, maxCount)
	}
	n := int(*x)
	return &n, nil
}

// countRange reads a pair of count keywords and checks that min <= max.
func countRange(obj map[string]json.RawMessage, minKey, maxKey string) (lo, hi *int, err error) {
	if lo, err = countKeyword(obj, minKey); err != nil {
		return nil, nil, err
	}
	if hi, err = countKeyword(obj, maxKey); err != nil {
		return nil, nil, err
	}
	if lo != nil && hi != nil && *hi < *lo {
		return nil, nil, fmt.Errorf("%s %d is less than %s %d", maxKey, *hi, minKey, *lo)
	}
	return lo, hi, nil
}
