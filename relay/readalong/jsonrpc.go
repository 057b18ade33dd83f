package readalong

import (
	"bytes"
	"encoding/json"
)

// eachMessage calls scan with msg, a JSON-RPC message, or with each
// message of msg, a batch.
func eachMessage(msg []byte, scan func(msg []byte)) {
	if trimmed := bytes.TrimLeft(msg, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '[' {
		scan(msg)
		return
	}
	var batch []json.RawMessage
	if json.Unmarshal(msg, &batch) != nil {
		return
	}
	for _, m := range batch {
		scan(m)
	}
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
