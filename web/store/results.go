package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// maxShown caps the text and JSON a call keeps for display, in bytes.
const maxShown = 256 << 10

// toolOutcome joins the text blocks of a tool result.
func toolOutcome(data json.RawMessage) (string, bool) {
	var r wire.CallToolResult
	if err := json.Unmarshal(data, &r); err != nil {
		return "", false
	}
	var texts []string
	for _, c := range r.Content {
		if c.Type == wire.ContentText {
			texts = append(texts, c.Text)
		}
	}
	return strings.Join(texts, "\n"), r.IsError
}

// resourceOutcome shows the text of each content of a resource, and what
// kind of binary content the others hold.
func resourceOutcome(data json.RawMessage) (string, bool) {
	var r wire.ReadResourceResult
	if err := json.Unmarshal(data, &r); err != nil {
		return "", false
	}
	var parts []string
	for _, c := range r.Contents {
		switch {
		case c.Blob != "":
			parts = append(parts, fmt.Sprintf("[binary content, %s, %d bytes]", orUnknown(c.MIMEType), BlobSize(c.Blob)))
		default:
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n"), false
}

// promptOutcome shows a prompt's description and its messages, one
// "role: text" paragraph each.
func promptOutcome(data json.RawMessage) (string, bool) {
	var r wire.GetPromptResult
	if err := json.Unmarshal(data, &r); err != nil {
		return "", false
	}
	var parts []string
	if r.Description != "" {
		parts = append(parts, r.Description)
	}
	for _, m := range r.Messages {
		parts = append(parts, string(m.Role)+": "+contentText(m.Content))
	}
	return strings.Join(parts, "\n\n"), false
}

// contentText is a content block as text: its text, or what it is.
func contentText(c wire.Content) string {
	switch c.Type {
	case wire.ContentText:
		return c.Text
	case wire.ContentResourceLink:
		return fmt.Sprintf("[link to %s]", c.URI)
	case wire.ContentResource:
		return embeddedText(c)
	default:
		return fmt.Sprintf("[%s content, %s]", c.Type, orUnknown(c.MIMEType))
	}
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

// describeError says in words why an op failed. The relay words each cause
// once (not connected with the server's state, connection lost, timed out,
// the server's JSON-RPC error with its code, too large), so its message is
// shown as it is, as a sentence, with what to do next where that helps.
func describeError(e *wire.Error) string {
	msg := strings.TrimSpace(e.Message)
	switch e.Code {
	case wire.CodeCancelled:
		return "Cancelled."
	case wire.CodeNotReady:
		return NotReadyText(e.Message)
	case wire.CodeConnectionLost:
		return sentence(msg) + " The call may or may not have run."
	case wire.CodeTimeout:
		return sentence(msg) + " The call may still run on the server."
	case wire.CodeToolError:
		return toolErrorText(msg)
	default:
		return sentence(msg)
	}
}

// NotReadyHint is what to do when a server could not take an op.
const NotReadyHint = "Try again once it shows ready; a failed server has Retry in the server list."

// notConnected is how the relay's not-ready messages begin.
const notConnected = "the server is not connected"

// NotReadyText says that a server was not connected, in the relay's words
// (which name the server's state), and what to do next.
func NotReadyText(msg string) string {
	m := strings.TrimSpace(msg)
	if !strings.HasPrefix(strings.ToLower(m), notConnected) {
		m = notConnected + " (" + m + ")"
		if strings.TrimSpace(msg) == "" {
			m = notConnected
		}
	}
	return sentence(m) + " " + NotReadyHint
}

// sentence is msg with its first letter capitalised and a full stop.
func sentence(msg string) string {
	m := strings.TrimSpace(msg)
	if m == "" {
		return "The relay gave no reason."
	}
	r, n := utf8.DecodeRuneInString(m)
	m = string(unicode.ToUpper(r)) + m[n:]
	if !strings.HasSuffix(m, ".") {
		m += "."
	}
	return m
}

// toolErrorText is what a result marked isError shows as its error.
func toolErrorText(text string) string {
	if strings.TrimSpace(text) == "" {
		return "The tool reported an error without a message."
	}
	return text
}

// IndentJSON pretty-prints data for reading, with the escapes of <, > and &
// that encoding/json writes turned back into the characters, or returns it
// as is if it is not JSON.
func IndentJSON(data json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Indent(&b, data, "", "  "); err != nil {
		return string(data)
	}
	return unescapeHTML(b.String())
}

// htmlEscapes are the escapes Go's encoding/json writes for <, > and &.
var htmlEscapes = map[string]byte{"003c": '<', "003e": '>', "0026": '&'}

// unescapeHTML turns those escapes in JSON text back into the characters a
// person expects to read. The JSON stays equivalent, and it is shown as text.
func unescapeHTML(s string) string {
	if !strings.Contains(s, `\u00`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		if s[i+1] == 'u' && i+6 <= len(s) {
			if c, ok := htmlEscapes[strings.ToLower(s[i+2:i+6])]; ok {
				b.WriteByte(c)
				i += 5
				continue
			}
		}
		b.WriteString(s[i : i+2]) // any other escape, kept whole
		i++
	}
	return b.String()
}

// clip cuts s to maxShown bytes on a character boundary, saying how much was left out.
func clip(s string) string {
	if len(s) <= maxShown {
		return s
	}
	cut := maxShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n… %d more bytes not shown", len(s)-cut)
}

// toolResult decodes a tool result; nil when it does not decode.
func toolResult(data json.RawMessage) *wire.CallToolResult {
	var r wire.CallToolResult
	if json.Unmarshal(data, &r) != nil {
		return nil
	}
	return &r
}
