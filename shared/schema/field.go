package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"unicode/utf8"
)

var errNested = errors.New("nested objects are not allowed")

// parseField reads one property.
func parseField(name string, raw json.RawMessage) (Field, error) {
	fd := Field{Name: name}
	obj, err := object(raw)
	if err != nil {
		return fd, err
	}
	if _, ok := obj["properties"]; ok {
		return fd, errNested
	}
	if err := refuseKeywords(obj, propertyRefused); err != nil {
		return fd, err
	}
	typ, err := fieldType(obj)
	if err != nil {
		return fd, err
	}
	if fd.Title, _, err = stringKeyword(obj, "title"); err != nil {
		return fd, err
	}
	if fd.Description, _, err = stringKeyword(obj, "description"); err != nil {
		return fd, err
	}
	if typ != "string" {
		for _, k := range stringOnly {
			if _, ok := obj[k]; ok {
				return fd, fmt.Errorf("%q is only allowed on strings", k)
			}
		}
	}
	if _, ok := obj["items"]; ok && typ != "array" {
		return fd, errors.New(`"items" is only allowed on arrays`)
	}
	switch typ {
	case "string":
		err = parseString(&fd, obj)
	case "number", "integer":
		err = parseNumber(&fd, obj, typ)
	case "boolean":
		err = parseBoolean(&fd, obj)
	case "array":
		err = parseMulti(&fd, obj)
	case "object":
		err = errNested
	default:
		err = fmt.Errorf("type %q is not supported (use string, number, integer, boolean or array)", typ)
	}
	return fd, err
}

// fieldType reads the required, single "type" of a property.
func fieldType(obj map[string]json.RawMessage) (string, error) {
	raw, ok := obj["type"]
	if !ok {
		return "", errors.New(`missing "type"`)
	}
	var typ string
	if json.Unmarshal(raw, &typ) != nil {
		return "", errors.New(`"type" must be a single string`)
	}
	return typ, nil
}

// parseString reads a string property: a select if it lists options, free
// text otherwise.
func parseString(fd *Field, obj map[string]json.RawMessage) error {
	opts, err := parseOptions(obj)
	if err != nil {
		return err
	}
	if opts != nil {
		fd.Kind = SingleSelect
		fd.Options = opts
		return defaultString(fd, obj)
	}
	fd.Kind = String
	if err := parseFormat(fd, obj); err != nil {
		return err
	}
	if fd.MinLength, fd.MaxLength, err = countRange(obj, "minLength", "maxLength"); err != nil {
		return err
	}
	if err := parsePattern(fd, obj); err != nil {
		return err
	}
	return defaultString(fd, obj)
}

// parseFormat reads "format", which must be one the validator checks.
func parseFormat(fd *Field, obj map[string]json.RawMessage) error {
	format, ok, err := stringKeyword(obj, "format")
	if err != nil || !ok {
		return err
	}
	switch format {
	case FormatEmail, FormatURI, FormatDate, FormatDateTime:
		fd.Format = format
		return nil
	}
	return fmt.Errorf("format %q is not supported (use email, uri, date or date-time)", format)
}

// parsePattern reads and compiles "pattern".
func parsePattern(fd *Field, obj map[string]json.RawMessage) error {
	pattern, ok, err := stringKeyword(obj, "pattern")
	if err != nil || !ok {
		return err
	}
	if utf8.RuneCountInString(pattern) > MaxPatternLength {
		return fmt.Errorf("pattern is longer than %d characters", MaxPatternLength)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return fmt.Errorf("pattern does not compile: %w", err)
	}
	fd.Pattern, fd.re = pattern, re
	return nil
}

// parseNumber reads a number or integer property.
func parseNumber(fd *Field, obj map[string]json.RawMessage, typ string) error {
	fd.Kind = Number
	if typ == "integer" {
		fd.Kind = Integer
	}
	var err error
	if fd.Minimum, err = numberKeyword(obj, "minimum"); err != nil {
		return err
	}
	if fd.Maximum, err = numberKeyword(obj, "maximum"); err != nil {
		return err
	}
	if fd.Minimum != nil && fd.Maximum != nil && *fd.Maximum < *fd.Minimum {
		return fmt.Errorf("maximum %s is less than minimum %s", formatNumber(*fd.Maximum), formatNumber(*fd.Minimum))
	}
	return parseDefault[float64](fd, obj, "a number")
}

// parseBoolean reads a boolean property.
func parseBoolean(fd *Field, obj map[string]json.RawMessage) error {
	fd.Kind = Boolean
	return parseDefault[bool](fd, obj, "true or false")
}

// parseMulti reads an array property, which must be a multi-select of
// strings.
func parseMulti(fd *Field, obj map[string]json.RawMessage) error {
	fd.Kind = MultiSelect
	raw, ok := obj["items"]
	if !ok {
		return errors.New(`an array must list its choices in "items"`)
	}
	items, err := object(raw)
	if err != nil {
		return fmt.Errorf(`"items": %w`, err)
	}
	if err := checkItems(items); err != nil {
		return fmt.Errorf(`"items": %w`, err)
	}
	if fd.Options, err = parseOptions(items); err != nil {
		return fmt.Errorf(`"items": %w`, err)
	}
	if fd.Options == nil {
		return errors.New(`"items" must list the choices in "enum" or "anyOf"`)
	}
	if fd.MinItems, fd.MaxItems, err = countRange(obj, "minItems", "maxItems"); err != nil {
		return err
	}
	return parseDefault[[]string](fd, obj, "an array of strings")
}

// checkItems refuses items that are not plain strings.
func checkItems(items map[string]json.RawMessage) error {
	if _, ok := items["properties"]; ok {
		return errNested
	}
	if err := refuseKeywords(items, propertyRefused); err != nil {
		return err
	}
	if _, ok := items["items"]; ok {
		return errors.New("nested arrays are not allowed")
	}
	if _, ok := items["type"]; !ok {
		return nil // titled options: {"anyOf": [{"const", "title"}, ...]}
	}
	typ, err := fieldType(items)
	if err != nil {
		return err
	}
	if typ != "string" {
		return fmt.Errorf("type %q is not supported (a multi-select holds strings)", typ)
	}
	return nil
}

// defaultString reads the default of a string or single-select property.
func defaultString(fd *Field, obj map[string]json.RawMessage) error {
	return parseDefault[string](fd, obj, "a string")
}

// parseDefault reads "default" as a T; null counts as no default.
func parseDefault[T any](fd *Field, obj map[string]json.RawMessage, want string) error {
	raw, ok := obj["default"]
	if !ok || string(raw) == "null" {
		return nil
	}
	var v T
	if json.Unmarshal(raw, &v) != nil {
		return fmt.Errorf(`"default" must be %s`, want)
	}
	fd.Default = v
	return nil
}
