package mcpwire

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Caps on what a server can put in an ask.
const maxAskMessageRunes = 4000

// Elicitation converts what an elicitation asks (a form, or consent to
// open a URL), from, into the ask a person sees: its message sanitized and
// cut with a note saying so, its id made safe to show, its schema (in the
// server's key order when p carries it so) as it is, for the broker to
// check. A schema over 64 KiB is an error. The caller fills in the server.
func Elicitation(p *mcp.ElicitParams, from wire.AskFrom) (wire.Ask, error) {
	a := wire.Ask{Kind: wire.AskForm, From: from, Message: askMessage(p.Message)}
	if p.Mode == string(wire.AskURL) {
		a.Kind, a.URL, a.ElicitationID = wire.AskURL, p.URL, ElicitationID(p.ElicitationID)
		return a, nil
	}
	a.Schema = json.RawMessage(`{"type":"object"}`) // a form without fields: a confirmation
	if p.RequestedSchema != nil {
		raw, err := json.Marshal(p.RequestedSchema)
		if err != nil {
			return a, fmt.Errorf("requestedSchema: %w", err)
		}
		if len(raw) > maxSchemaBytes {
			return a, fmt.Errorf("the requested schema is over %d bytes", maxSchemaBytes)
		}
		a.Schema = raw
	}
	return a, nil
}

// ElicitationID makes a server's elicitation id safe to show. Requests and
// completion notifications both pass through it, so they still match.
func ElicitationID(s string) string { return line(s, maxKeyRunes) }

// askMessage makes a server's message safe to show, cut with a note when it
// is too long.
func askMessage(s string) string {
	out := text(s, maxAskMessageRunes)
	if n := utf8.RuneCountInString(s); n > maxAskMessageRunes && strings.HasSuffix(out, "…") {
		out += fmt.Sprintf("\n\n[The relay cut this message: the server sent %d characters.]", n)
	}
	return out
}
