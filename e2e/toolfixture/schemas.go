package toolfixture

// RichSchema is the rich tool's inputSchema: every construct the
// dashboard's form draws, and one it cannot (mixed, an allOf).
const RichSchema = `{
  "type": "object",
  "$defs": {
    "point": {"type": "object", "title": "Point",
      "properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x"]},
    "tree": {"type": "object",
      "properties": {"name": {"type": "string"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}}}}
  },
  "properties": {
    "name": {"type": "string", "title": "Name", "description": "Lower-case letters", "minLength": 2, "pattern": "^[a-z]+$"},
    "email": {"type": "string", "format": "email"},
    "when": {"type": "string", "format": "date"},
    "count": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
    "ratio": {"type": "number", "minimum": 0, "maximum": 1},
    "loud": {"type": "boolean", "default": false},
    "color": {"type": "string", "enum": ["red", "green", "blue"]},
    "size": {"oneOf": [{"const": 1, "title": "Small"}, {"const": 2, "title": "Large"}]},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
    "points": {"type": "array", "items": {"$ref": "#/$defs/point"}},
    "address": {"type": "object", "properties": {
      "street": {"type": "string"}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}}, "required": ["street"]},
    "nick": {"type": ["string", "null"]},
    "target": {"anyOf": [{"type": "string", "title": "By name"}, {"$ref": "#/$defs/point"}]},
    "tree": {"$ref": "#/$defs/tree"},
    "mixed": {"allOf": [{"type": "object"}, {"required": ["a"]}]}
  },
  "required": ["name", "count"]
}`

// Output schemas of the shape tools.
const (
	ShapeSchema = `{"type": "object", "properties": {"area": {"type": "number"}, "unit": {"type": "string"}}, "required": ["area", "unit"]}`
	// ShapeOK matches ShapeSchema; ShapeBad does not (area is text, unit missing).
	ShapeOK  = `{"area": 12.5, "unit": "m2"}`
	ShapeBad = `{"area": "big"}`
)
