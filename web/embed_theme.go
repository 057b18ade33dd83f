package web

import (
	"regexp"
	"strings"
)

// The properties a host page may set on the embedded dashboard, and the
// values each accepts: colours, corner radii and fonts, nothing that could
// load a resource (no url(), no image-set) or break out of a declaration.
var (
	themeColor  = regexp.MustCompile(`^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,20}|(rgb|rgba|hsl|hsla|oklch|oklab|lab|lch)\([0-9a-zA-Z.,%/ +-]{1,60}\))$`)
	themeLength = regexp.MustCompile(`^(0|[0-9]{1,3}(\.[0-9]{1,2})?(px|rem|em))$`)
	themeFont   = regexp.MustCompile(`^[a-zA-Z0-9 ,"'-]{1,200}$`)

	themeProperties = map[string]*regexp.Regexp{
		"--sb-bg": themeColor, "--sb-surface": themeColor, "--sb-text": themeColor, "--sb-muted": themeColor,
		"--sb-border": themeColor, "--sb-input-border": themeColor, "--sb-accent": themeColor,
		"--sb-accent-hover": themeColor, "--sb-accent-text": themeColor, "--sb-focus": themeColor,
		"--sb-selected": themeColor, "--sb-danger": themeColor, "--sb-danger-bg": themeColor,
		"--sb-ask-accent": themeColor, "--sb-ask-bg": themeColor,
		"--sb-radius": themeLength, "--sb-radius-small": themeLength,
		"--sb-font": themeFont, "--sb-mono": themeFont,
	}
)

// Colour schemes a host may ask for.
const (
	schemeLight = "light"
	schemeDark  = "dark"
	schemeAuto  = "auto" // the system's, as prefers-color-scheme says
)

// themeOf keeps the properties of the allow-list whose values fit, and
// returns the names it dropped.
func themeOf(props map[string]string) (kept map[string]string, dropped []string) {
	kept = map[string]string{}
	for name, value := range props {
		value = strings.TrimSpace(value)
		re, ok := themeProperties[name]
		if !ok || !re.MatchString(value) || strings.Contains(strings.ToLower(value), "url") {
			dropped = append(dropped, name)
			continue
		}
		kept[name] = value
	}
	return kept, dropped
}

// schemeOf returns the colour scheme a host asked for, auto for anything else.
func schemeOf(s string) string {
	switch s {
	case schemeLight, schemeDark:
		return s
	}
	return schemeAuto
}
