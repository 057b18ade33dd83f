package store

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// contentsOf returns the resource contents a successful answer holds, for
// rendering by type: the contents of a resource read, or the resources
// embedded in a prompt's messages or a tool's result.
func contentsOf(kind wire.CallKind, data json.RawMessage) []wire.ResourceContents {
	switch kind {
	case wire.CallKindResource:
		var r wire.ReadResourceResult
		if json.Unmarshal(data, &r) != nil {
			return nil
		}
		return r.Contents
	case wire.CallKindPrompt:
		var r wire.GetPromptResult
		if json.Unmarshal(data, &r) != nil {
			return nil
		}
		var out []wire.ResourceContents
		for _, m := range r.Messages {
			if rc, ok := EmbeddedResource(m.Content); ok {
				out = append(out, rc)
			}
		}
		return out
	case wire.CallKindTool:
		var r wire.CallToolResult
		if json.Unmarshal(data, &r) != nil {
			return nil
		}
		var out []wire.ResourceContents
		for _, c := range r.Content {
			if rc, ok := EmbeddedResource(c); ok {
				out = append(out, rc)
			}
		}
		return out
	}
	return nil
}

// EmbeddedResource returns the resource a content block of type resource
// embeds; its MIME type is the nested resource's, not the block's.
func EmbeddedResource(c wire.Content) (wire.ResourceContents, bool) {
	if c.Type != wire.ContentResource || len(c.Resource) == 0 {
		return wire.ResourceContents{}, false
	}
	var rc wire.ResourceContents
	if json.Unmarshal(c.Resource, &rc) != nil {
		return wire.ResourceContents{}, false
	}
	return rc, true
}

// embeddedText is an embedded resource as text: its text, or what it holds.
func embeddedText(c wire.Content) string {
	rc, ok := EmbeddedResource(c)
	switch {
	case !ok:
		return "[embedded resource, unreadable]"
	case rc.Blob != "":
		return fmt.Sprintf("[embedded resource %s, %s, %d bytes]", rc.URI, orUnknown(rc.MIMEType), BlobSize(rc.Blob))
	default:
		return rc.Text
	}
}

// BlobSize is the number of bytes a base64 blob decodes to.
func BlobSize(b64 string) int {
	n := len(b64)
	for n > 0 && b64[n-1] == '=' {
		n--
	}
	return n * 3 / 4
}

// keptBlobCalls is how many calls, the newest, keep the binary contents of
// their results; older ones drop them, so that a dashboard reading many
// large images does not hold them all.
const keptBlobCalls = 8

// DroppedBlob is the text a binary content shows once its data was dropped.
const DroppedBlob = "[binary content no longer kept here; read it again to see it]"

// dropOldBlobs drops the binary contents of the calls older than the
// keptBlobCalls newest that hold some.
func (c *Client) dropOldBlobs() {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := 0
	var out []Call
	for i, call := range c.calls {
		if call.Tool == nil && !slices.ContainsFunc(call.Contents, func(rc wire.ResourceContents) bool { return rc.Blob != "" }) {
			continue
		}
		if seen++; seen <= keptBlobCalls {
			continue
		}
		if out == nil {
			out = slices.Clone(c.calls)
		}
		contents := slices.Clone(call.Contents)
		for j := range contents {
			if contents[j].Blob != "" {
				contents[j].Blob, contents[j].Text = "", DroppedBlob
			}
		}
		out[i].Contents = contents
		out[i].Tool = nil // the call shows its text and JSON, as a call from the state without its result
	}
	if out != nil {
		c.calls = out
	}
}
