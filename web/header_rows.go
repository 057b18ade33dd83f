package web

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// renderHeaderRows renders n rows of a header name and a value, with ids
// prefix-name-i and prefix-value-i. The value input is a password field,
// never filled in: header values are secrets the dashboard never reads.
func renderHeaderRows(prefix string, n int, invalid bool) app.UI {
	rows := make([]app.UI, n)
	for i := range n {
		is := strconv.Itoa(i)
		rows[i] = app.Div().Class("sb-header-row").Body(
			app.Label().For(prefix+"-name-"+is).Class("sb-visually-hidden").Text("Header name "+strconv.Itoa(i+1)),
			app.Input().ID(prefix+"-name-"+is).Class("header-name").Type("text").AutoComplete(false).Spellcheck(false).
				Placeholder("X-Api-Key").Aria("invalid", invalid),
			app.Label().For(prefix+"-value-"+is).Class("sb-visually-hidden").Text("Header value "+strconv.Itoa(i+1)),
			app.Input().ID(prefix+"-value-"+is).Class("header-value").Type("password").Attr("autocomplete", "new-password").
				Placeholder("value").Aria("invalid", invalid),
		)
	}
	return app.Div().Class("sb-header-rows").Body(rows...)
}

// headerRowsValue reads n header rows from the page.
func headerRowsValue(prefix string, n int) []headerRow {
	rows := make([]headerRow, n)
	for i := range n {
		is := strconv.Itoa(i)
		rows[i] = headerRow{Name: domValue(prefix + "-name-" + is), Value: domValue(prefix + "-value-" + is)}
	}
	return rows
}

// clearHeaderRows empties n header rows on the page.
func clearHeaderRows(prefix string, n int) {
	for i := range n {
		is := strconv.Itoa(i)
		setDOMValue(prefix+"-name-"+is, "")
		setDOMValue(prefix+"-value-"+is, "")
	}
}
