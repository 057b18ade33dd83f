package schema

import "encoding/json"

// Limits on what [ParseInput] draws as fields.
const (
	// MaxInputDepth is how deep objects, arrays, choices and references nest
	// before a subtree falls back to a JSON editor.
	MaxInputDepth = 8
	// MaxInputNodes caps the nodes of one tool's form; the rest fall back
	// to JSON editors.
	MaxInputNodes = 500
)

// InputKind is the kind of a node of a tool's input form.
type InputKind int

// The kinds of input nodes.
const (
	InputField  InputKind = iota // a primitive, drawn as [Input.Field] says
	InputEnum                    // one of Options, whose values are any JSON
	InputObject                  // named properties
	InputArray                   // a list of Items
	InputChoice                  // one of Alts (anyOf / oneOf)
	InputJSON                    // a subtree the form cannot draw: typed as JSON
)

// Input is one node of the form of a tool's inputSchema: the tool-schema
// extension of a [Form]. Leaves are [Field]s, parsed and checked by the same
// code as elicitation forms; objects, arrays, choices and enums of any JSON
// value nest around them. What cannot be drawn is an InputJSON node that
// keeps its schema and says why.
type Input struct {
	Kind               InputKind
	Title, Description string
	// Nullable is set when null is allowed (type [x, "null"], or a null
	// alternative of anyOf/oneOf).
	Nullable bool
	// Default is the schema's default value, as JSON; nil when none.
	Default json.RawMessage

	Field   Field        // InputField: the primitive (its Name and Required are unused)
	Options []EnumOption // InputEnum
	Props   []Prop       // InputObject, in document order
	Items   *Input       // InputArray
	// MinItems and MaxItems bound an InputArray.
	MinItems, MaxItems *int
	Alts               []*Input // InputChoice
	Schema             json.RawMessage
	Why                string // InputJSON: why the subtree is not fields
}

// Prop is one property of an object node.
type Prop struct {
	Name     string
	Required bool
	*Input
}

// EnumOption is one allowed value of an enum node and its label.
type EnumOption struct {
	Value json.RawMessage
	Label string
}

// Label is what a choice among alternatives calls n: its title, or its
// kind of value.
func (n *Input) Label() string {
	if n.Title != "" {
		return n.Title
	}
	switch n.Kind {
	case InputField:
		return n.Field.Kind.String()
	case InputEnum:
		return "one of the options"
	case InputObject:
		return "object"
	case InputArray:
		return "list"
	case InputChoice:
		return "choice"
	}
	return "JSON value"
}
