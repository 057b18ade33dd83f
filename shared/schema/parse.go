package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// ErrInvalid is wrapped by every error of [Parse].
var ErrInvalid = errors.New("invalid schema")

// Parse reads a requested schema: a top-level object with "properties" and
// "required", each property a primitive. Keywords that would change what
// the form accepts but that the subset lacks ($ref, allOf, nested objects,
// ...) are refused; annotations it does not use ($schema, examples, x-...)
// are ignored.
func Parse(raw json.RawMessage) (*Form, error) {
	if len(raw) > MaxBytes {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrInvalid, MaxBytes)
	}
	if !json.Valid(raw) {
		return nil, fmt.Errorf("%w: not valid JSON", ErrInvalid)
	}
	top, err := object(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	form, err := parseTop(top)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return form, nil
}

// parseTop reads the top-level object.
func parseTop(top map[string]json.RawMessage) (*Form, error) {
	typ, ok, err := stringKeyword(top, "type")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New(`missing "type" (must be "object")`)
	}
	if typ != "object" {
		return nil, fmt.Errorf(`"type" must be "object", not %q`, typ)
	}
	if err := refuseKeywords(top, topRefused); err != nil {
		return nil, err
	}
	if raw, ok := top["additionalProperties"]; ok {
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return nil, errors.New(`"additionalProperties" must be true or false`)
		}
	}
	form := &Form{}
	if form.Title, _, err = stringKeyword(top, "title"); err != nil {
		return nil, err
	}
	if form.Description, _, err = stringKeyword(top, "description"); err != nil {
		return nil, err
	}
	if form.Fields, err = parseProperties(top["properties"]); err != nil {
		return nil, err
	}
	if err := markRequired(form.Fields, top["required"]); err != nil {
		return nil, err
	}
	return form, nil
}

// parseProperties reads the "properties" object in document order.
func parseProperties(raw json.RawMessage) ([]Field, error) {
	if raw == nil {
		return nil, nil
	}
	props, err := members(raw)
	if err != nil {
		return nil, fmt.Errorf(`"properties": %w`, err)
	}
	if len(props) > MaxFields {
		return nil, fmt.Errorf("more than %d properties", MaxFields)
	}
	fields := make([]Field, 0, len(props))
	seen := make(map[string]bool, len(props))
	for _, p := range props {
		if p.key == "" {
			return nil, errors.New("a property has an empty name")
		}
		if seen[p.key] {
			return nil, fmt.Errorf("property %q is defined twice", p.key)
		}
		seen[p.key] = true
		fd, err := parseField(p.key, p.value)
		if err != nil {
			return nil, fmt.Errorf("property %q: %w", p.key, err)
		}
		fields = append(fields, fd)
	}
	return fields, nil
}

// markRequired reads the "required" list and flags the named fields.
func markRequired(fields []Field, raw json.RawMessage) error {
	if raw == nil {
		return nil
	}
	var names []string
	if json.Unmarshal(raw, &names) != nil {
		return errors.New(`"required" must be an array of strings`)
	}
	for _, name := range names {
		i := slices.IndexFunc(fields, func(f Field) bool { return f.Name == name })
		if i < 0 {
			return fmt.Errorf(`"required" names %q, which is not a property`, name)
		}
		fields[i].Required = true
	}
	return nil
}
