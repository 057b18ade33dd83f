package mcpwire

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Caps of log data: a string keeps at most logStringRunes runes, and data
// whose JSON is over wire.MaxLogData bytes keeps its first logCutRunes runes
// of JSON text, as a string. A rune takes at most 4 bytes of JSON (a quote
// or backslash, escaped, 2), so both stay under wire.MaxLogData.
const (
	logStringRunes = 1000
	logCutRunes    = 500
)

// LogEntry is a server's log message, at level (one of wire.LogLevels), as
// a dashboard's journal shows it: received now, its logger on one line,
// its data capped.
func LogEntry(level wire.LogLevel, p *mcp.LoggingMessageParams) wire.LogEntry {
	return wire.LogEntry{
		Time:   time.Now(),
		Level:  level,
		Logger: line(p.Logger, wire.MaxLogger),
		Data:   logData(p.Data),
	}
}

// logData is a message's data as JSON of at most wire.MaxLogData bytes: a
// string loses control characters but not its line breaks; other data that
// is too long is cut and kept as a string.
func logData(v any) json.RawMessage {
	if s, ok := v.(string); ok {
		v = text(s, logStringRunes)
	}
	b, err := marshalText(v)
	if err != nil {
		return nil
	}
	if len(b) <= wire.MaxLogData {
		return b
	}
	b, _ = marshalText(text(string(b), logCutRunes) + " (cut)")
	return b
}

// marshalText is JSON without the HTML escapes, which would triple the size
// of text that holds angle brackets.
func marshalText(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
