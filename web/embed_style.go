package web

import (
	"strings"
	"sync"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// darkMedia is the condition under which the stylesheet's dark colours apply.
const darkMedia = "prefers-color-scheme: dark"

// schemeRules are the stylesheet's dark-colour rules and their conditions
// as written, found when a host first sets a colour scheme: a forced
// scheme rewrites their condition ("all" or "not all"), auto restores it.
var schemeRules struct {
	once  sync.Once
	rules []app.Value
	media []string
}

// applyTheme applies a theme message of the host: the allowed custom
// properties on the page's root, and the colour scheme.
func applyTheme(data app.Value) {
	root := app.Window().Get("document").Get("documentElement")
	if props := data.Get("properties"); props.Type() == app.TypeObject {
		in := map[string]string{}
		keys := app.Window().Get("Object").Call("keys", props)
		for i := 0; i < keys.Length() && i < len(themeProperties)*2; i++ {
			k := keys.Index(i).String()
			if v := props.Get(k); v.Type() == app.TypeString {
				in[k] = v.String()
			}
		}
		kept, dropped := themeOf(in)
		style := root.Get("style")
		for name, value := range kept {
			style.Call("setProperty", name, value)
		}
		if len(dropped) > 0 {
			app.Logf("switchboard embed: theme properties not allowed or with bad values were ignored: %s", strings.Join(dropped, ", "))
		}
	}
	if s := data.Get("colorScheme"); s.Type() == app.TypeString {
		setColorScheme(root, schemeOf(s.String()))
	}
}

// setColorScheme makes the page light, dark, or follow the system.
func setColorScheme(root app.Value, scheme string) {
	schemeRules.once.Do(findSchemeRules)
	root.Get("dataset").Set("colorScheme", scheme)
	if scheme == schemeAuto {
		root.Get("style").Call("removeProperty", "color-scheme")
	} else {
		root.Get("style").Call("setProperty", "color-scheme", scheme)
	}
	for i, r := range schemeRules.rules {
		media := schemeRules.media[i]
		switch scheme {
		case schemeDark:
			media = "all"
		case schemeLight:
			media = "not all"
		}
		r.Get("media").Set("mediaText", media)
	}
}

// findSchemeRules collects the media rules of the page's stylesheets that
// hold the dark colours.
func findSchemeRules() {
	defer func() { recover() }() // a stylesheet whose rules cannot be read is skipped with the rest
	sheets := app.Window().Get("document").Get("styleSheets")
	for i := 0; i < sheets.Length(); i++ {
		rules := sheets.Index(i).Get("cssRules")
		for j := 0; j < rules.Length(); j++ {
			r := rules.Index(j)
			media := r.Get("media")
			if !media.Truthy() {
				continue
			}
			if text := media.Get("mediaText").String(); strings.Contains(text, darkMedia) {
				schemeRules.rules = append(schemeRules.rules, r)
				schemeRules.media = append(schemeRules.media, text)
			}
		}
	}
}
