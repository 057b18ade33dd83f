package authn

import "fmt"

// EmbedOrigins checks the origins of the sites that may embed the
// dashboard and returns them as a browser writes an origin (lower case, no
// default port, no trailing slash), in order and without duplicates.
func EmbedOrigins(origins []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, o := range origins {
		n, err := normalizeOrigin(o)
		if err != nil {
			return nil, fmt.Errorf("embed origin %q: %w", o, err)
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out, nil
}
