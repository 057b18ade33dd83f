package web

import (
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/schema"
)

// Layouts of the browser's date-time-local inputs, which have no zone.
const (
	localMinutes = "2006-01-02T15:04"
	localSeconds = "2006-01-02T15:04:05"
)

// fieldEntry is what a person entered in one field of a form, as the page holds it.
type fieldEntry struct {
	text     string   // a text, number, date or select input's value
	checked  bool     // a checkbox
	chosen   []string // the ticked options of a multi-select, in option order
	badInput bool     // the browser could not read what was typed in a number input
}

// answerContent turns what was entered into the values of an answer, and
// says what is wrong with the entries that cannot become values. Empty
// entries are left out (an optional multi-select with nothing ticked too),
// numbers become float64, and a date-time-local value becomes RFC 3339 in
// loc, the person's time zone.
func answerContent(form *schema.Form, entries map[string]fieldEntry, loc *time.Location) (map[string]any, schema.FieldErrors) {
	values := map[string]any{}
	var bad schema.FieldErrors
	fail := func(name, msg string) {
		if bad == nil {
			bad = schema.FieldErrors{}
		}
		bad[name] = msg
	}
	for _, fd := range form.Fields {
		e := entries[fd.Name]
		switch fd.Kind {
		case schema.Boolean:
			values[fd.Name] = e.checked
		case schema.MultiSelect:
			if len(e.chosen) > 0 || fd.Required {
				values[fd.Name] = append([]string{}, e.chosen...)
			}
		case schema.Number, schema.Integer:
			text := strings.TrimSpace(e.text)
			if e.badInput {
				fail(fd.Name, "must be a number")
				continue
			}
			if text == "" {
				continue
			}
			x, err := strconv.ParseFloat(text, 64)
			if err != nil {
				fail(fd.Name, "must be a number")
				continue
			}
			values[fd.Name] = x
		default:
			if e.text == "" {
				continue
			}
			if fd.Kind == schema.String && fd.Format == schema.FormatDateTime {
				t, ok := parseLocalDateTime(e.text, loc)
				if !ok {
					fail(fd.Name, "must be a date and time")
					continue
				}
				values[fd.Name] = t.Format(time.RFC3339)
				continue
			}
			values[fd.Name] = e.text
		}
	}
	return values, bad
}

// checkAnswer returns what is wrong with an answer: the entries that could
// not be read, then what the schema's validator (the relay's too) says.
func checkAnswer(form *schema.Form, values map[string]any, bad schema.FieldErrors) schema.FieldErrors {
	errs := form.Validate(values)
	for name, msg := range bad {
		if errs == nil {
			errs = schema.FieldErrors{}
		}
		errs[name] = msg
	}
	return errs
}

// parseLocalDateTime reads a date-time-local input's value in loc.
func parseLocalDateTime(s string, loc *time.Location) (time.Time, bool) {
	for _, layout := range []string{localMinutes, localSeconds} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// localDateTime writes an RFC 3339 date-time as a date-time-local input's
// value in loc, or "" when it is not one.
func localDateTime(rfc3339 string, loc *time.Location) string {
	t, err := time.Parse(time.RFC3339, rfc3339)
	if err != nil {
		return ""
	}
	t = t.In(loc)
	if t.Second() != 0 {
		return t.Format(localSeconds)
	}
	return t.Format(localMinutes)
}

// initialText is what a text, number, date or select input shows first:
// the field's default.
func initialText(fd schema.Field, loc *time.Location) string {
	switch d := fd.Default.(type) {
	case string:
		if fd.Kind == schema.String && fd.Format == schema.FormatDateTime {
			return localDateTime(d, loc)
		}
		return d
	case float64:
		return numberText(d)
	}
	return ""
}
