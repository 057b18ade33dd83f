package web

import (
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/schema"
)

// maxRadioOptions is the most options a single select shows as radio
// buttons; one with more is a drop-down list.
const maxRadioOptions = 4

// fieldID is the id of field i's input in the card of ask (for radio and
// checkbox groups, of the group).
func fieldID(ask string, i int) string { return "ask-" + ask + "-f" + strconv.Itoa(i) }

// optionID is the id of option j's input in the group of field i.
func optionID(ask string, i, j int) string { return fieldID(ask, i) + "-o" + strconv.Itoa(j) }

// usesRadios reports whether a single select shows as radio buttons.
func usesRadios(fd schema.Field) bool {
	return fd.Kind == schema.SingleSelect && len(fd.Options) <= maxRadioOptions
}

// renderField draws field i of the form: its label, input, help and error.
func (c *FormAskCard) renderField(i int, fd schema.Field) app.UI {
	switch {
	case fd.Kind == schema.Boolean:
		return c.renderCheckbox(i, fd)
	case fd.Kind == schema.MultiSelect:
		return c.renderChoices(i, fd, "checkbox")
	case usesRadios(fd):
		return c.renderChoices(i, fd, "radio")
	case fd.Kind == schema.SingleSelect:
		return c.renderSelect(i, fd)
	default:
		return c.renderInput(i, fd)
	}
}

// renderInput is a text, email, URL, date, date-time or number input.
func (c *FormAskCard) renderInput(i int, fd schema.Field) app.UI {
	id := fieldID(c.Ask.ID, i)
	in := app.Input().ID(id).Class("ask-field").DataSet("field", fd.Name).Type(inputType(fd)).
		AutoComplete(false).Spellcheck(false).Value(initialText(fd, time.Local)).
		Aria("describedby", id+"-help "+id+"-error").
		OnInput(func(ctx app.Context, e app.Event) { c.edited(fd.Name, false) }, app.EventScope(c.Ask.ID, fd.Name)).
		OnBlur(func(ctx app.Context, e app.Event) {
			if !leavingForAButton(e) {
				c.edited(fd.Name, true)
			}
		}, app.EventScope(c.Ask.ID, fd.Name))
	switch fd.Kind {
	case schema.Integer:
		in = in.Attr("step", "1").Attr("inputmode", "numeric")
	case schema.Number:
		in = in.Attr("step", "any").Attr("inputmode", "decimal")
	}
	if fd.Minimum != nil {
		in = in.Attr("min", numberText(*fd.Minimum))
	}
	if fd.Maximum != nil {
		in = in.Attr("max", numberText(*fd.Maximum))
	}
	return app.Div().Class("ask-row").Body(
		app.Label().For(id).Body(fieldLabel(fd)...),
		c.fieldStates(in, fd),
		fieldHelp(id, fd),
		c.fieldError(id, fd),
	)
}

// renderCheckbox is a boolean: one checkbox with its label beside it.
func (c *FormAskCard) renderCheckbox(i int, fd schema.Field) app.UI {
	id := fieldID(c.Ask.ID, i)
	on, _ := fd.Default.(bool)
	in := checkedIf(app.Input().ID(id).Class("ask-field").DataSet("field", fd.Name).Type("checkbox"), on).
		Aria("describedby", id+"-help "+id+"-error").
		OnChange(func(ctx app.Context, e app.Event) { c.edited(fd.Name, true) }, app.EventScope(c.Ask.ID, fd.Name))
	return app.Div().Class("ask-row", "is-check").Body(
		app.Div().Class("check-line").Body(
			c.fieldStates(in, fd),
			app.Label().For(id).Body(fieldLabel(fd)...),
		),
		fieldHelp(id, fd),
		c.fieldError(id, fd),
	)
}

// renderChoices is a group of radio buttons (a single select) or checkboxes
// (a multi select), one per option.
func (c *FormAskCard) renderChoices(i int, fd schema.Field, kind string) app.UI {
	id := fieldID(c.Ask.ID, i)
	chosen := map[string]bool{}
	switch d := fd.Default.(type) {
	case string:
		chosen[d] = true
	case []string:
		for _, v := range d {
			chosen[v] = true
		}
	}
	invalid := c.errs[fd.Name] != ""
	// A group of radio buttons is a radiogroup, which may be required and
	// invalid; a plain group may be neither, so its checkboxes are invalid.
	group := app.FieldSet().ID(id).Class("ask-row", "ask-choices", choose(invalid, "is-invalid", "")).
		DataSet("field", fd.Name).Aria("describedby", id+"-help "+id+"-error")
	if kind == "radio" {
		group = group.Role("radiogroup")
		if invalid {
			group = group.Aria("invalid", "true")
		}
		if fd.Required {
			group = group.Aria("required", "true")
		}
	}
	return group.Body(
		app.Legend().Body(fieldLabel(fd)...),
		fieldHelp(id, fd),
		app.Div().Class("choice-list").Body(
			app.Range(fd.Options).Slice(func(j int) app.UI {
				o := fd.Options[j]
				oid := optionID(c.Ask.ID, i, j)
				in := checkedIf(app.Input().ID(oid).Class("ask-field").DataSet("field", fd.Name).
					Type(kind).Name(id).Value(o.Value), chosen[o.Value]).
					OnChange(func(ctx app.Context, e app.Event) { c.edited(fd.Name, true) }, app.EventScope(c.Ask.ID, fd.Name, j))
				if invalid && kind == "checkbox" {
					in = in.Aria("invalid", "true")
				}
				return app.Label().Class("choice").For(oid).Body(in, app.Span().Text(o.Label))
			}),
		),
		c.fieldError(id, fd),
	)
}

// renderSelect is a single select with many options: a drop-down list that
// starts on its default or on "Choose…".
func (c *FormAskCard) renderSelect(i int, fd schema.Field) app.UI {
	id := fieldID(c.Ask.ID, i)
	def, _ := fd.Default.(string)
	sel := app.Select().ID(id).Class("ask-field").DataSet("field", fd.Name).
		Aria("describedby", id+"-help "+id+"-error").
		OnChange(func(ctx app.Context, e app.Event) { c.edited(fd.Name, true) }, app.EventScope(c.Ask.ID, fd.Name))
	if c.errs[fd.Name] != "" {
		sel = sel.Aria("invalid", "true")
	}
	if fd.Required {
		sel = sel.Aria("required", "true")
	}
	return app.Div().Class("ask-row").Body(
		app.Label().For(id).Body(fieldLabel(fd)...),
		sel.Body(
			selectedIf(app.Option(), def == "").Text(choose(fd.Required, "Choose…", "(none)")),
			app.Range(fd.Options).Slice(func(j int) app.UI {
				o := fd.Options[j]
				return selectedIf(app.Option().Value(o.Value), o.Value == def).Text(o.Label)
			}),
		),
		fieldHelp(id, fd),
		c.fieldError(id, fd),
	)
}

// fieldStates marks an input invalid and required as the field is.
func (c *FormAskCard) fieldStates(in app.HTMLInput, fd schema.Field) app.HTMLInput {
	if c.errs[fd.Name] != "" {
		in = in.Aria("invalid", "true")
	}
	if fd.Required {
		in = in.Aria("required", "true")
	}
	return in
}

// fieldError is the place of the field's error message, empty while it has none.
func (c *FormAskCard) fieldError(id string, fd schema.Field) app.UI {
	return app.P().ID(id+"-error").Class("field-error").DataSet("field", fd.Name).Text(c.errs[fd.Name])
}

// fieldLabel is a field's title, marked when the field is required.
func fieldLabel(fd schema.Field) []app.UI {
	label := []app.UI{app.Span().Class("field-title").Text(titleOr(fd.Title, fd.Name))}
	if fd.Required {
		label = append(label, app.Span().Class("required-mark").Text("required"))
	}
	return label
}

// fieldHelp is a field's description and what it accepts.
func fieldHelp(id string, fd schema.Field) app.UI {
	parts := []string{}
	if d := strings.TrimSpace(fd.Description); d != "" {
		parts = append(parts, d)
	}
	if h := fieldHint(fd); h != "" {
		parts = append(parts, h)
	}
	return app.Small().ID(id + "-help").Class("field-help").Text(strings.Join(parts, " · "))
}

// inputType is the type of a field's input.
func inputType(fd schema.Field) string {
	switch {
	case fd.Kind == schema.Number || fd.Kind == schema.Integer:
		return "number"
	case fd.Format == schema.FormatEmail:
		return "email"
	case fd.Format == schema.FormatURI:
		return "url"
	case fd.Format == schema.FormatDate:
		return "date"
	case fd.Format == schema.FormatDateTime:
		return "datetime-local"
	}
	return "text"
}

// fieldHint says what a field accepts, in a few words, or "".
func fieldHint(fd schema.Field) string {
	var parts []string
	switch fd.Kind {
	case schema.String:
		if f := formatHints[fd.Format]; f != "" {
			parts = append(parts, f)
		}
		if r := countHint(fd.MinLength, fd.MaxLength, "character", "characters"); r != "" {
			parts = append(parts, r)
		}
	case schema.Integer:
		parts = append(parts, "A whole number")
		if r := rangeHint(fd.Minimum, fd.Maximum); r != "" {
			parts = append(parts, r)
		}
	case schema.Number:
		if r := rangeHint(fd.Minimum, fd.Maximum); r != "" {
			parts = append(parts, r)
		}
	case schema.MultiSelect:
		if r := countHint(fd.MinItems, fd.MaxItems, "choice", "choices"); r != "" {
			parts = append(parts, "Choose "+r)
		}
	}
	hint := strings.Join(parts, ", ")
	if hint == "" {
		return ""
	}
	return strings.ToUpper(hint[:1]) + hint[1:]
}

var formatHints = map[string]string{
	schema.FormatEmail:    "An email address",
	schema.FormatURI:      "A full URL, like https://example.com",
	schema.FormatDate:     "A date",
	schema.FormatDateTime: "A date and time, in your time zone",
}

// countHint is "2 to 5 characters", "at least 2 characters", "at most 1 choice"...
func countHint(lo, hi *int, one, many string) string {
	noun := func(n int) string {
		if n == 1 {
			return one
		}
		return many
	}
	switch {
	case lo != nil && hi != nil && *lo == *hi:
		return "exactly " + strconv.Itoa(*lo) + " " + noun(*lo)
	case lo != nil && hi != nil:
		return strconv.Itoa(*lo) + " to " + strconv.Itoa(*hi) + " " + noun(*hi)
	case lo != nil && *lo > 0:
		return "at least " + strconv.Itoa(*lo) + " " + noun(*lo)
	case hi != nil:
		return "at most " + strconv.Itoa(*hi) + " " + noun(*hi)
	}
	return ""
}

// numberText writes a number without exponent or trailing zeros.
func numberText(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// rangeHint is "from 1 to 10", "at least 0" or "at most 5".
func rangeHint(lo, hi *float64) string {
	f := numberText
	switch {
	case lo != nil && hi != nil:
		return "from " + f(*lo) + " to " + f(*hi)
	case lo != nil:
		return "at least " + f(*lo)
	case hi != nil:
		return "at most " + f(*hi)
	}
	return ""
}
