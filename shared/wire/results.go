package wire

// OutputCheck is the relay's check of a tool result's structuredContent
// against the tool's outputSchema. It is set on a [CallToolResult] only when
// the tool declares an outputSchema.
type OutputCheck struct {
	// Valid is set when structuredContent is present and matches the schema.
	Valid bool `json:"valid"`
	// Problems say where and why it does not match (at most MaxOutputProblems).
	Problems []SchemaProblem `json:"problems,omitempty"`
}

// SchemaProblem is one place where a value does not match a schema.
type SchemaProblem struct {
	Path   string `json:"path"`   // JSON Pointer into the value; "" is the whole value
	Reason string `json:"reason"` // sanitized, one line
}

// MaxOutputProblems caps the problems an [OutputCheck] carries.
const MaxOutputProblems = 20

// Icon is an icon of a tool, prompt, resource or server that is safe to show:
// the relay keeps only data: URIs of allow-listed image types under a size
// limit (see MaxIconBytes), fetching https icons itself through its network
// guard when it inlines them.
type Icon struct {
	Src      string   `json:"src"` // a data: URI
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"` // "light" or "dark"
}

// MaxIconBytes caps one icon's data: URI.
const MaxIconBytes = 64 << 10
