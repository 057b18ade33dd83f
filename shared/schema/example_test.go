package schema_test

import (
	"encoding/json"
	"fmt"

	"github.com/switchboard-mcp/switchboard/shared/schema"
)

func ExampleForm_Validate() {
	// The requested schema of an elicitation, as a server sends it.
	form, err := schema.Parse(json.RawMessage(`{
		"type": "object",
		"properties": {
			"name":  {"type": "string", "title": "Your name", "minLength": 2},
			"email": {"type": "string", "format": "email"},
			"plan":  {"type": "string", "oneOf": [
				{"const": "free", "title": "Free"},
				{"const": "pro", "title": "Pro"}
			], "default": "free"}
		},
		"required": ["name", "email"]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range form.Fields {
		fmt.Printf("%s (%v, required %t)\n", f.Name, f.Kind, f.Required)
	}

	// Start from the defaults, as a dashboard would, and fill in the form.
	values := form.Defaults()
	values["name"] = "A"
	values["email"] = "ada@example"
	values["plan"] = "enterprise"
	errs := form.Validate(values)
	for _, f := range form.Fields {
		if msg, ok := errs[f.Name]; ok {
			fmt.Printf("%s: %s\n", f.Name, msg)
		}
	}

	values["name"] = "Ada"
	values["email"] = "ada@example.com"
	values["plan"] = "pro"
	fmt.Println("valid:", form.Validate(values) == nil)
	// Output:
	// name (string, required true)
	// email (string, required true)
	// plan (single-select, required false)
	// name: must be at least 2 characters
	// email: must be an email address, like name@example.com
	// plan: must be one of: Free, Pro
	// valid: true
}

func ExampleParse_refused() {
	_, err := schema.Parse(json.RawMessage(`{
		"type": "object",
		"properties": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}}
	}`))
	fmt.Println(err)
	// Output:
	// invalid schema: property "address": nested objects are not allowed
}

func ExampleInput_Validate() {
	// A tool's inputSchema, with a nested object, a list and a nullable field.
	root, err := schema.ParseInput(json.RawMessage(`{
		"type": "object",
		"properties": {
			"city":  {"type": "string", "minLength": 2},
			"where": {"type": "object", "properties": {"lat": {"type": "number", "minimum": -90, "maximum": 90}}, "required": ["lat"]},
			"tags":  {"type": "array", "items": {"type": "string"}},
			"note":  {"type": ["string", "null"]}
		},
		"required": ["city"]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	var args any
	json.Unmarshal([]byte(`{"city": "X", "where": {"lat": 100}, "tags": ["a", 2], "note": null}`), &args)
	for _, p := range root.Validate(args) {
		fmt.Printf("%s: %s\n", p.Path, p.Reason)
	}
	// Output:
	// /city: must be at least 2 characters
	// /where/lat: must be at most 90
	// /tags/1: must be text
}
