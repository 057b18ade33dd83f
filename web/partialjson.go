package web

import (
	"encoding/json"
	"strings"
)

// partialObject is the JSON object that the start of one, partial (the
// arguments a model is still writing), stands for so far: its open
// strings and containers closed, and what cannot be closed (a key without
// its value, half a number or literal) left out. It reports false when
// nothing of an object can be made of it yet.
func partialObject(partial string) (json.RawMessage, bool) {
	cut := len(partial)
	for cut > 0 {
		if closed, ok := closeJSON(partial[:cut], cut == len(partial)); ok {
			var obj map[string]json.RawMessage
			if json.Unmarshal([]byte(closed), &obj) == nil && obj != nil {
				return json.RawMessage(closed), true
			}
		}
		// Back to the structural character before the end: keep an
		// opening one, drop a comma or colon with what follows it.
		i := strings.LastIndexAny(partial[:cut], ",:{[")
		switch {
		case i < 0:
			return nil, false
		case (partial[i] == '{' || partial[i] == '[') && i+1 < cut:
			cut = i + 1
		default:
			cut = i
		}
	}
	return nil, false
}

// closeJSON closes the strings and containers s leaves open; ok is false
// when the result is not valid JSON, or when s is all the model wrote so
// far and ends in a number, which may go on (2 may be the start of 23).
func closeJSON(s string, all bool) (string, bool) {
	var open []byte
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{':
			open = append(open, '}')
		case c == '[':
			open = append(open, ']')
		case c == '}' || c == ']':
			if len(open) == 0 {
				return "", false
			}
			open = open[:len(open)-1]
		}
	}
	if all && !inString && endsInNumber(s) {
		return "", false
	}
	var b strings.Builder
	b.WriteString(s)
	if inString {
		if escaped {
			return "", false
		}
		b.WriteByte('"')
	}
	for i := len(open) - 1; i >= 0; i-- {
		b.WriteByte(open[i])
	}
	out := b.String()
	return out, json.Valid([]byte(out))
}

// endsInNumber says whether s ends in a number: characters of one after
// a colon, comma, bracket or space.
func endsInNumber(s string) bool {
	i := len(s)
	for i > 0 && strings.IndexByte("0123456789.eE+-", s[i-1]) >= 0 {
		i--
	}
	return i < len(s) && i > 0 && strings.IndexByte(":,[ \t\r\n", s[i-1]) >= 0
}
