package servercfg

import (
	"net/url"
	"strings"
)

// Mask replaces a secret query value in a URL shown to a person.
const Mask = "•••"

// secretParams are query parameter names that carry secrets, compared in
// lower case with '-' and '_' removed.
var secretParams = map[string]bool{
	"apikey": true, "key": true, "token": true, "accesstoken": true, "authtoken": true,
	"secret": true, "clientsecret": true, "password": true, "pass": true, "pwd": true,
	"auth": true, "sig": true, "signature": true, "code": true, "session": true, "jwt": true,
}

// IsSecretParam reports whether a query parameter of this name carries a
// secret (api_key, apikey, key, token, access_token, secret, password,
// auth, sig...).
func IsSecretParam(name string) bool {
	n := strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(name))
	return secretParams[n]
}

// MaskURL returns raw with the values of its secret query parameters
// replaced by [Mask], and whether there were any. Other parameters keep
// their spelling.
func MaskURL(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery == "" {
		return raw, false
	}
	parts := strings.Split(u.RawQuery, "&")
	masked := false
	for i, p := range parts {
		name, value, _ := strings.Cut(p, "=")
		decoded, err := url.QueryUnescape(name)
		if err != nil {
			decoded = name
		}
		if value != "" && IsSecretParam(decoded) {
			parts[i] = name + "=" + Mask
			masked = true
		}
	}
	if !masked {
		return raw, false
	}
	u.RawQuery = strings.Join(parts, "&")
	return u.String(), true
}

// Unmask puts back into edited, a URL a person edited from the masked form
// of original, the secret values of original that are still masked: a
// person may change the path of a URL and keep its key without typing it
// again. Parameters whose value is not [Mask] are left as typed.
func Unmask(edited, original string) string {
	if !strings.Contains(edited, Mask) && !strings.Contains(edited, url.QueryEscape(Mask)) {
		return edited
	}
	orig, err := url.Parse(original)
	if err != nil {
		return edited
	}
	kept := map[string]string{}
	for _, p := range strings.Split(orig.RawQuery, "&") {
		name, value, _ := strings.Cut(p, "=")
		kept[name] = value
	}
	base, query, hasQuery := strings.Cut(edited, "?")
	if !hasQuery {
		return edited
	}
	query, fragment, hasFragment := strings.Cut(query, "#")
	parts := strings.Split(query, "&")
	for i, p := range parts {
		name, value, _ := strings.Cut(p, "=")
		if v, ok := kept[name]; ok && (value == Mask || value == url.QueryEscape(Mask)) {
			parts[i] = name + "=" + v
		}
	}
	out := base + "?" + strings.Join(parts, "&")
	if hasFragment {
		out += "#" + fragment
	}
	return out
}
