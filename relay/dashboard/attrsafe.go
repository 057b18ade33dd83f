package dashboard

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// attrSafe returns snap with every double quote in its strings made a single
// quote. go-app writes attribute values with strconv.Quote, which escapes a
// double quote as \" where HTML needs &quot;: a quote in a server's name or
// error would end the attribute in the prerendered page (in the browser,
// go-app sets attributes through the DOM, where any text is safe). The page
// the wasm draws a moment later shows the text as it is.
func attrSafe(snap wire.Snapshot) (wire.Snapshot, error) {
	b, err := json.Marshal(snap)
	if err != nil {
		return wire.Snapshot{}, fmt.Errorf("dashboard: encode state: %w", err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return wire.Snapshot{}, fmt.Errorf("dashboard: decode state: %w", err)
	}
	if b, err = json.Marshal(unquote(v)); err != nil {
		return wire.Snapshot{}, fmt.Errorf("dashboard: encode state: %w", err)
	}
	var safe wire.Snapshot
	if err := json.Unmarshal(b, &safe); err != nil {
		return wire.Snapshot{}, fmt.Errorf("dashboard: decode state: %w", err)
	}
	return safe, nil
}

// unquote replaces double quotes in every string of a decoded JSON value,
// keys included.
func unquote(v any) any {
	switch v := v.(type) {
	case string:
		return strings.ReplaceAll(v, `"`, "'")
	case []any:
		for i, e := range v {
			v[i] = unquote(e)
		}
		return v
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[strings.ReplaceAll(k, `"`, "'")] = unquote(e)
		}
		return m
	}
	return v
}
