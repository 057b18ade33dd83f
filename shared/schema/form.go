package schema

import (
	"regexp"
	"slices"
)

// Limits on what [Parse] accepts.
const (
	MaxBytes         = 1 << 20 // largest schema document, in bytes
	MaxFields        = 100     // most properties in one form
	MaxOptions       = 500     // most options in one select
	MaxPatternLength = 1000    // longest pattern, in characters
)

// Kind is the kind of input a field needs.
type Kind int

// The kinds of field.
const (
	String       Kind = iota // free text, maybe with a format or pattern
	Number                   // any number
	Integer                  // a whole number
	Boolean                  // true or false
	SingleSelect             // one of the options
	MultiSelect              // a set of options
)

var kindNames = [...]string{"string", "number", "integer", "boolean", "single-select", "multi-select"}

// String returns the kind's name, such as "multi-select".
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return "unknown"
	}
	return kindNames[k]
}

// String formats accepted in the format keyword.
const (
	FormatEmail    = "email"
	FormatURI      = "uri"
	FormatDate     = "date"
	FormatDateTime = "date-time"
)

// Form is a parsed requested schema.
type Form struct {
	Title, Description string
	Fields             []Field // in the order of the schema's "properties"
}

// Field is one property of a form. Constraints that are nil or empty do not
// apply.
type Field struct {
	Name, Title, Description string
	Kind                     Kind
	Required                 bool

	Format               string // for String: one of the Format constants
	MinLength, MaxLength *int   // for String, in characters (runes)
	Pattern              string // for String: a Go regexp, unanchored

	Minimum, Maximum *float64 // for Number and Integer, inclusive

	Options            []Option // for SingleSelect and MultiSelect
	MinItems, MaxItems *int     // for MultiSelect

	// Default is the value to pre-fill: a string (String, SingleSelect),
	// float64 (Number, Integer), bool (Boolean) or []string (MultiSelect).
	Default any

	re *regexp.Regexp // Pattern compiled by Parse
}

// Option is one choice of a select: the value sent and the label shown.
type Option struct{ Value, Label string }

// Defaults returns the default value of every field that has one, keyed by
// field name. The map is new and the caller may change it.
func (f *Form) Defaults() map[string]any {
	out := make(map[string]any)
	for _, fd := range f.Fields {
		switch d := fd.Default.(type) {
		case nil:
		case []string:
			out[fd.Name] = slices.Clone(d)
		default:
			out[fd.Name] = d
		}
	}
	return out
}
