package schema

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
)

// parseOptions reads the options of a select from "enum" (with the legacy
// "enumNames" as labels) or from "oneOf"/"anyOf" entries of the form
// {"const": value, "title": label}. It returns nil if obj lists none.
func parseOptions(obj map[string]json.RawMessage) ([]Option, error) {
	var sources []string
	for _, k := range []string{"enum", "oneOf", "anyOf"} {
		if _, ok := obj[k]; ok {
			sources = append(sources, k)
		}
	}
	if _, ok := obj["enumNames"]; ok && (len(sources) != 1 || sources[0] != "enum") {
		return nil, errors.New(`"enumNames" needs "enum"`)
	}
	switch len(sources) {
	case 0:
		return nil, nil
	case 1:
	default:
		return nil, fmt.Errorf("use only one of %q and %q", sources[0], sources[1])
	}
	var (
		opts []Option
		err  error
	)
	if sources[0] == "enum" {
		opts, err = enumOptions(obj)
	} else {
		opts, err = titledOptions(obj[sources[0]], sources[0])
	}
	if err != nil {
		return nil, err
	}
	return opts, checkOptions(opts)
}

// enumOptions reads a plain "enum", labelled by "enumNames" if present.
func enumOptions(obj map[string]json.RawMessage) ([]Option, error) {
	var values []json.RawMessage
	if json.Unmarshal(obj["enum"], &values) != nil {
		return nil, errors.New(`"enum" must be an array`)
	}
	if len(values) > MaxOptions {
		return nil, fmt.Errorf("more than %d options", MaxOptions)
	}
	opts := make([]Option, len(values))
	for i, raw := range values {
		if json.Unmarshal(raw, &opts[i].Value) != nil || string(raw) == "null" {
			return nil, fmt.Errorf("enum[%d] must be a string", i)
		}
		opts[i].Label = opts[i].Value
	}
	raw, ok := obj["enumNames"]
	if !ok {
		return opts, nil
	}
	var names []string
	if json.Unmarshal(raw, &names) != nil {
		return nil, errors.New(`"enumNames" must be an array of strings`)
	}
	if len(names) != len(opts) {
		return nil, fmt.Errorf(`"enum" has %d values but "enumNames" has %d`, len(opts), len(names))
	}
	for i, name := range names {
		if name != "" {
			opts[i].Label = name
		}
	}
	return opts, nil
}

// titledOptions reads "oneOf" or "anyOf" entries of {"const", "title"}; an
// entry without a title is labelled by its value.
func titledOptions(raw json.RawMessage, key string) ([]Option, error) {
	var entries []json.RawMessage
	if json.Unmarshal(raw, &entries) != nil {
		return nil, fmt.Errorf("%q must be an array", key)
	}
	if len(entries) > MaxOptions {
		return nil, fmt.Errorf("more than %d options", MaxOptions)
	}
	opts := make([]Option, len(entries))
	for i, raw := range entries {
		entry, err := object(raw)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", key, i, err)
		}
		c, ok := entry["const"]
		if !ok || json.Unmarshal(c, &opts[i].Value) != nil || string(c) == "null" {
			return nil, fmt.Errorf(`%s[%d]: "const" must be a string`, key, i)
		}
		title, _, err := stringKeyword(entry, "title")
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", key, i, err)
		}
		opts[i].Label = cmp.Or(title, opts[i].Value)
	}
	return opts, nil
}

// checkOptions requires at least one option, and values that are
// non-empty and distinct.
func checkOptions(opts []Option) error {
	if len(opts) == 0 {
		return errors.New("a select needs at least one option")
	}
	seen := make(map[string]bool, len(opts))
	for _, o := range opts {
		if o.Value == "" {
			return errors.New("option values must not be empty")
		}
		if seen[o.Value] {
			return fmt.Errorf("option %q is listed twice", o.Value)
		}
		seen[o.Value] = true
	}
	return nil
}
