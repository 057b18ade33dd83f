package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
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
		if c.Type == "text" {
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
		parts = append(parts, m.Role+": "+contentText(m.Content))
	}
	return strings.Join(parts, "\n\n"), false
}

// contentText is a content block as text: its text, or what it is.
func contentText(c wire.Content) string {
	switch c.Type {
	case "text":
		return c.Text
	case "resource_link":
		return fmt.Sprintf("[link to %s]", c.URI)
	case "resource":
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

// describeError says in words why an op failed: one wording per cause,
// with the relay's message only where it adds to it.
func describeError(e *wire.Error) string {
	msg := strings.TrimSpace(e.Message)
	switch e.Code {
	case wire.CodeCancelled:
		return "Cancelled."
	case wire.CodeNotReady:
		return NotReadyText(e.Message)
	case wire.CodeNotFound:
		return "Not found: " + msg
	case wire.CodeConnectionLost:
		return "The connection to the server was lost during the call; it may or may not have run. " + NotReadyHint
	case wire.CodeTimeout:
		return withDetail("The server did not answer in time", msg, "timed out") + " The call was given up; it may still run on the server."
	case wire.CodeProtocol:
		text := "The server answered with an error"
		if e.RPCCode != 0 {
			text += " (code " + strconv.Itoa(e.RPCCode) + ")"
		}
		return text + ": " + msg
	case wire.CodeUpstream:
		return withDetail("The call to the server failed", msg, "")
	case wire.CodeTooLarge:
		return withDetail("The result is too large for the relay", msg, "")
	case wire.CodeToolError:
		return toolErrorText(msg)
	default:
		return msg
	}
}

// withDetail is lead and, in parentheses, the relay's message unless it
// only repeats the lead (or contains skip); it ends with a period.
func withDetail(lead, msg, skip string) string {
	m := strings.TrimSuffix(msg, ".")
	if m == "" || strings.EqualFold(m, lead) || (skip != "" && strings.EqualFold(m, skip)) {
		return lead + "."
	}
	return lead + " (" + m + ")."
}

// NotReadyHint is what to do when a server could not take an op.
const NotReadyHint = "Try again once it shows ready; a failed server has Retry in the server list."

// NotReadyText says that a server was not connected, with the relay's
// words when they add to that, and what to do next.
func NotReadyText(msg string) string {
	text := "The server is not connected"
	if m := strings.TrimSpace(msg); m != "" && !strings.EqualFold(m, text) {
		text += " (" + m + ")"
	}
	return text + ". " + NotReadyHint
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
