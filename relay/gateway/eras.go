package gateway

import (
	"encoding/json"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Protocol eras. The gateway serves 2025-06-18 and 2025-11-25 on stateful
// sessions (an initialize, then Mcp-Session-Id) and 2026-07-28 statelessly
// (server/discover, then requests that each carry their version and the
// client's capabilities in _meta; see gateway.go). The relay speaks to each
// server in the newest era the server does, so what a server sends may
// carry fields of 2026-07-28 (resultType, ttlMs, cacheScope, the server's
// own serverInfo in _meta), and the go-sdk adds some to results it builds
// whatever the session's era. Each agent gets its own era's shapes: the
// newer fields are taken out of every result a session of an older era
// gets (oldEraResult), and the server's serverInfo out of every result, as
// it names the server, not the gateway the agent speaks to (for a
// 2026-07-28 agent, the go-sdk then names the gateway).

// newFields are the fields of a result that 2026-07-28 added.
var newFields = []string{"resultType", "ttlMs", "cacheScope", "inputRequests", "requestState"}

// newMetaKeys are the _meta keys that 2026-07-28 added.
var newMetaKeys = []string{
	mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientInfo, mcp.MetaKeyServerInfo,
	mcp.MetaKeyClientCapabilities, mcp.MetaKeyLogLevel, mcp.MetaKeySubscriptionID,
}

// newEra reports whether a session that negotiated version speaks
// 2026-07-28 or later.
func newEra(version string) bool { return version >= firstInputRequestEra }

// sessionEra is the protocol version of the session a request came on: the
// one it negotiated, or for 2026-07-28 the one the request carries.
func sessionEra(req mcp.Request) string {
	if req == nil {
		return ""
	}
	ss, _ := req.GetSession().(*mcp.ServerSession)
	return eraOf(ss)
}

// withoutNewMeta is m without the _meta keys of 2026-07-28. They describe
// one leg: an agent's request to the gateway, or a server's to the relay;
// each leg's sender puts its own.
func withoutNewMeta(m mcp.Meta) mcp.Meta {
	out := maps.Clone(m)
	for _, k := range newMetaKeys {
		delete(out, k)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// withoutServerInfo takes the server's serverInfo out of res's _meta.
func withoutServerInfo(res mcp.Result) {
	if res == nil {
		return
	}
	m := res.GetMeta()
	if _, ok := m[mcp.MetaKeyServerInfo]; !ok {
		return
	}
	m = maps.Clone(m)
	delete(m, mcp.MetaKeyServerInfo)
	if len(m) == 0 {
		m = nil
	}
	res.SetMeta(m)
}

// oldEraResult is a result as a session before 2026-07-28 gets it: without
// the fields and _meta keys of 2026-07-28.
type oldEraResult struct{ mcp.Result }

func (r oldEraResult) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(r.Result)
	if err != nil {
		return nil, err
	}
	return withoutNewFields(b)
}

// withoutNewFields is the JSON object b without the fields and _meta keys
// of 2026-07-28; the values it keeps are kept byte for byte.
func withoutNewFields(b []byte) ([]byte, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
		return b, nil // not an object: nothing to take out
	}
	changed := false
	for _, f := range newFields {
		if _, ok := obj[f]; ok {
			delete(obj, f)
			changed = true
		}
	}
	var meta map[string]json.RawMessage
	if raw, ok := obj["_meta"]; ok && json.Unmarshal(raw, &meta) == nil {
		n := len(meta)
		for _, k := range newMetaKeys {
			delete(meta, k)
		}
		switch {
		case len(meta) == 0:
			delete(obj, "_meta")
			changed = true
		case len(meta) != n:
			kept, err := json.Marshal(meta)
			if err != nil {
				return nil, err
			}
			obj["_meta"] = kept
			changed = true
		}
	}
	if !changed {
		return b, nil
	}
	return json.Marshal(obj)
}
