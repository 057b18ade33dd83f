package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits on what messages quote, so that a long schema keeps them short.
const (
	maxListedOptions = 10 // options named in "must be one of: ..."
	maxShownPattern  = 60 // longest pattern quoted in a message, in bytes
)

// FieldErrors maps a field name to what is wrong with its value. The key ""
// holds form-level problems, such as unknown fields.
type FieldErrors map[string]string

// Error lists the problems, form-level first, then by field name.
func (e FieldErrors) Error() string {
	keys := make([]string, 0, len(e))
	for k := range e {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = e[k]
		if k != "" {
			parts[i] = k + ": " + e[k]
		}
	}
	return strings.Join(parts, "; ")
}

// Validate checks values against the form and returns one message per field
// at fault; nil means the values are valid.
//
// A value that is absent, null or the empty string counts as not given: an
// error for a required field, nothing to check otherwise (a blank input
// sends "", and it should then be left out of what is sent on). Numbers may
// be float64, json.Number, int or int64; a multi-select's value may be
// []string or []any of strings. Keys that name no field are refused.
func (f *Form) Validate(values map[string]any) FieldErrors {
	var errs FieldErrors
	add := func(key, msg string) {
		if errs == nil {
			errs = FieldErrors{}
		}
		errs[key] = msg
	}
	known := make(map[string]bool, len(f.Fields))
	for i := range f.Fields {
		fd := &f.Fields[i]
		known[fd.Name] = true
		if msg := fd.check(values[fd.Name]); msg != "" {
			add(fd.Name, msg)
		}
	}
	var unknown []string
	for k := range values {
		if !known[k] {
			unknown = append(unknown, strconv.Quote(k))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		noun := "unknown field "
		if len(unknown) > 1 {
			noun = "unknown fields "
		}
		add("", noun+strings.Join(unknown, ", "))
	}
	return errs
}

// check returns what is wrong with v, or "".
func (fd *Field) check(v any) string {
	if v == nil || v == "" {
		if fd.Required {
			return "is required"
		}
		return ""
	}
	switch fd.Kind {
	case String:
		return fd.checkString(v)
	case Number, Integer:
		return fd.checkNumber(v)
	case Boolean:
		if _, ok := v.(bool); !ok {
			return "must be true or false"
		}
		return ""
	case SingleSelect:
		if s, ok := v.(string); !ok || fd.optionIndex(s) < 0 {
			return fd.choices("must be one of")
		}
		return ""
	case MultiSelect:
		return fd.checkMulti(v)
	}
	return "cannot be checked: unknown kind of field"
}

func (fd *Field) checkString(v any) string {
	s, ok := v.(string)
	if !ok {
		return "must be text"
	}
	n := utf8.RuneCountInString(s)
	if fd.MinLength != nil && n < *fd.MinLength {
		return "must be at least " + plural(*fd.MinLength, "character")
	}
	if fd.MaxLength != nil && n > *fd.MaxLength {
		return "must be at most " + plural(*fd.MaxLength, "character")
	}
	if fd.Format != "" && !checkFormat(fd.Format, s) {
		return formatMessages[fd.Format]
	}
	if fd.Pattern == "" {
		return ""
	}
	re := fd.re
	if re == nil { // a Field built by hand rather than by Parse
		var err error
		if re, err = regexp.Compile(fd.Pattern); err != nil {
			return "cannot be checked: the pattern is invalid"
		}
	}
	if !re.MatchString(s) {
		if len(fd.Pattern) > maxShownPattern {
			return "is not in the expected form"
		}
		return "must match the pattern " + fd.Pattern
	}
	return ""
}

func (fd *Field) checkNumber(v any) string {
	x, ok := toFloat(v)
	if !ok {
		return "must be a number"
	}
	if fd.Kind == Integer && x != math.Trunc(x) {
		return "must be a whole number"
	}
	if fd.Minimum != nil && x < *fd.Minimum {
		return "must be at least " + formatNumber(*fd.Minimum)
	}
	if fd.Maximum != nil && x > *fd.Maximum {
		return "must be at most " + formatNumber(*fd.Maximum)
	}
	return ""
}

func (fd *Field) checkMulti(v any) string {
	chosen, ok := toStrings(v)
	if !ok {
		return "must be a list of choices"
	}
	seen := make(map[string]bool, len(chosen))
	for _, s := range chosen {
		i := fd.optionIndex(s)
		if i < 0 {
			return fd.choices("must be chosen from")
		}
		if seen[s] {
			return fmt.Sprintf("must not choose %q twice", fd.Options[i].Label)
		}
		seen[s] = true
	}
	if fd.MinItems != nil && len(chosen) < *fd.MinItems {
		return "must have at least " + plural(*fd.MinItems, "choice")
	}
	if fd.MaxItems != nil && len(chosen) > *fd.MaxItems {
		return "must have at most " + plural(*fd.MaxItems, "choice")
	}
	return ""
}

// toFloat reads a finite number.
func toFloat(v any) (float64, bool) {
	var x float64
	switch n := v.(type) {
	case float64:
		x = n
	case json.Number:
		var err error
		if x, err = n.Float64(); err != nil {
			return 0, false
		}
	case int:
		x = float64(n)
	case int64:
		x = float64(n)
	default:
		return 0, false
	}
	return x, !math.IsInf(x, 0) && !math.IsNaN(x)
}

// toStrings reads a list of strings.
func toStrings(v any) ([]string, bool) {
	switch l := v.(type) {
	case []string:
		return l, true
	case []any:
		out := make([]string, len(l))
		for i, e := range l {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	}
	return nil, false
}

// optionIndex returns the index of the option with the given value, or -1.
func (fd *Field) optionIndex(value string) int {
	return slices.IndexFunc(fd.Options, func(o Option) bool { return o.Value == value })
}

// choices ends a message with the options by label ("must be one of: a,
// b"), or points at the list when there are too many to name.
func (fd *Field) choices(prefix string) string {
	if len(fd.Options) > maxListedOptions {
		return prefix + " the listed options"
	}
	labels := make([]string, len(fd.Options))
	for i, o := range fd.Options {
		labels[i] = o.Label
	}
	return prefix + ": " + strings.Join(labels, ", ")
}

// plural writes "1 character", "3 characters".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// formatNumber writes a number without exponent or trailing zeros.
func formatNumber(x float64) string {
	return strconv.FormatFloat(x, 'f', -1, 64)
}
