package schema

import (
	"encoding/json"
	"fmt"
)

// Keywords refused everywhere: they would change what a value must be, and
// the subset cannot express or check that.
var commonRefused = []string{
	"$ref", "$dynamicRef", "$recursiveRef", "$defs", "definitions",
	"allOf", "not", "if", "then", "else",
	"dependentRequired", "dependentSchemas", "dependencies",
	"patternProperties", "propertyNames", "unevaluatedProperties",
	"minProperties", "maxProperties", "const",
}

// topRefused adds what a form's top level may not use.
var topRefused = append([]string{"anyOf", "oneOf", "enum"}, commonRefused...)

// propertyRefused adds what a property (or a multi-select's items) may not
// use.
var propertyRefused = append([]string{
	"additionalProperties", "prefixItems", "contains", "minContains", "maxContains",
	"unevaluatedItems", "multipleOf", "exclusiveMinimum", "exclusiveMaximum",
}, commonRefused...)

// Keywords that only a string property may carry: they list its options.
var stringOnly = []string{"enum", "enumNames", "oneOf", "anyOf"}

// refuseKeywords fails on the first of the keywords present in obj.
func refuseKeywords(obj map[string]json.RawMessage, keywords []string) error {
	for _, k := range keywords {
		if _, ok := obj[k]; ok {
			return fmt.Errorf("keyword %q is not supported", k)
		}
	}
	return nil
}
