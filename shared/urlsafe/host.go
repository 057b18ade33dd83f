package urlsafe

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// punycodePrefix marks an internationalized label in its ASCII form (RFC 3490).
const punycodePrefix = "xn--"

// script is a writing system a host label's letters may come from.
type script struct {
	name  string
	table *unicode.RangeTable
	// lookalike: some of its letters are hard to tell from Latin ones.
	lookalike bool
}

// scripts are the writing systems told apart. Han, Hiragana, Katakana and
// Hangul share one name: Japanese and Korean names mix them legitimately.
var scripts = []script{
	{name: "Latin", table: unicode.Latin},
	{name: "Cyrillic", table: unicode.Cyrillic, lookalike: true},
	{name: "Greek", table: unicode.Greek, lookalike: true},
	{name: "Armenian", table: unicode.Armenian, lookalike: true},
	{name: "Cherokee", table: unicode.Cherokee, lookalike: true},
	{name: "Georgian", table: unicode.Georgian},
	{name: "Hebrew", table: unicode.Hebrew},
	{name: "Arabic", table: unicode.Arabic},
	{name: "Devanagari", table: unicode.Devanagari},
	{name: "Bengali", table: unicode.Bengali},
	{name: "Thai", table: unicode.Thai},
	{name: "CJK", table: unicode.Han},
	{name: "CJK", table: unicode.Hiragana},
	{name: "CJK", table: unicode.Katakana},
	{name: "CJK", table: unicode.Hangul},
}

// HostWarnings returns what a person should know about host before trusting
// it: that it is written in punycode and what it reads as, that a label
// mixes writing systems (Latin with Cyrillic, say), or that it is written
// wholly in letters that imitate Latin ones. A plain ASCII name gets none.
func HostWarnings(host string) []string {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	var warnings []string
	labels := strings.Split(host, ".")
	readable := make([]string, len(labels))
	international := false
	for i, label := range labels {
		readable[i] = label
		if strings.HasPrefix(label, punycodePrefix) {
			decoded, err := decodePunycode(label[len(punycodePrefix):])
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("the host name has a malformed punycode label %q", label))
				continue
			}
			readable[i] = decoded
		}
		if !isASCII(readable[i]) {
			international = true
		}
	}
	if international {
		warnings = append(warnings, fmt.Sprintf("the host name uses international characters and reads as %q", strings.Join(readable, ".")))
	}
	for _, label := range readable {
		warnings = append(warnings, labelWarnings(label)...)
	}
	return warnings
}

// labelWarnings warns about the scripts of one decoded label.
func labelWarnings(label string) []string {
	var names []string
	lookalike := false
	for _, r := range label {
		if !unicode.IsLetter(r) {
			continue
		}
		for _, s := range scripts {
			if unicode.Is(s.table, r) {
				if !slices.Contains(names, s.name) {
					names = append(names, s.name)
					lookalike = lookalike || s.lookalike
				}
				break
			}
		}
	}
	switch {
	case len(names) > 1:
		return []string{fmt.Sprintf("the label %q mixes %s letters", label, strings.Join(names, " and "))}
	case len(names) == 1 && lookalike:
		return []string{fmt.Sprintf("the label %q is written in %s letters, some of which look like Latin ones", label, names[0])}
	}
	return nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8RuneSelf {
			return false
		}
	}
	return true
}

// utf8RuneSelf is the first byte value that is not ASCII.
const utf8RuneSelf = 0x80

// HostForms returns host in its two spellings: ascii with every
// international label in punycode ("xn--..."), as the browser looks it up,
// and readable with every punycode label decoded. A label that cannot be
// converted stays as it is in both. Only lower-casing is applied, not the
// full IDNA mapping a browser does.
func HostForms(host string) (ascii, readable string) {
	labels := strings.Split(strings.ToLower(host), ".")
	asciiLabels := make([]string, len(labels))
	readableLabels := make([]string, len(labels))
	for i, label := range labels {
		asciiLabels[i], readableLabels[i] = label, label
		switch {
		case !isASCII(label):
			if enc, err := encodePunycode(label); err == nil {
				asciiLabels[i] = punycodePrefix + enc
			}
		case strings.HasPrefix(label, punycodePrefix):
			if dec, err := decodePunycode(label[len(punycodePrefix):]); err == nil {
				readableLabels[i] = dec
			}
		}
	}
	return strings.Join(asciiLabels, "."), strings.Join(readableLabels, ".")
}
