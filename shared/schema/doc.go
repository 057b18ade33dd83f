// Package schema models the restricted JSON Schema that MCP uses for
// elicitation forms ("requested schema", MCP 2025-11-25): a flat object whose
// properties are strings, numbers, integers, booleans, single selects and
// multi selects. The same model serves tool-input forms.
//
// [Parse] turns a schema into a [Form], refusing anything outside the
// subset (nested objects, $ref, combinators, unknown formats, patterns that
// do not compile) with an error that names the property at fault. The form
// keeps the fields in document order, so a dashboard can draw them as the
// server wrote them. [Form.Defaults] gives the values to pre-fill and
// [Form.Validate] checks what a person entered, returning one short human
// message per field.
//
// Tool inputs go further: [ParseInput] reads a tool's inputSchema into a
// tree of [Input] nodes (nested objects, arrays, enums of any value,
// nullable fields, anyOf/oneOf choices, local $ref), whose leaves are the
// same [Field]s; a subtree it cannot draw becomes a JSON node saying why.
// [Input.Validate] names each place at fault by JSON Pointer.
//
// The package uses only the standard library: it is compiled into both the
// relay and the WebAssembly dashboard, so a form is checked by the same code
// on both sides. Limits ([MaxFields], [MaxOptions], [MaxPatternLength],
// [MaxBytes]) keep a hostile schema from making a browser churn; patterns
// use Go's RE2 syntax, which runs in linear time.
package schema
