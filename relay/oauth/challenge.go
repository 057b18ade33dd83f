package oauth

import (
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Parts of a Bearer challenge (RFC 6750 3, RFC 9728 5.1).
const (
	schemeBearer          = "bearer"
	paramScope            = "scope"
	paramResourceMetadata = "resource_metadata"
	headerWWWAuthenticate = "WWW-Authenticate"
)

// challenge is what a 401 or 403 answer's Bearer challenge asked for.
type challenge struct {
	resourceMetadata string   // where the protected resource metadata is
	scopes           []string // the scopes the request needs
}

// parseChallenge reads the Bearer challenge of a response's headers; a
// malformed header reads as no challenge.
func parseChallenge(h http.Header) challenge {
	cs, err := oauthex.ParseWWWAuthenticate(h.Values(headerWWWAuthenticate))
	if err != nil {
		return challenge{}
	}
	var out challenge
	for _, c := range cs {
		if c.Scheme != schemeBearer {
			continue
		}
		if out.resourceMetadata == "" {
			out.resourceMetadata = c.Params[paramResourceMetadata]
		}
		if out.scopes == nil {
			out.scopes = strings.Fields(c.Params[paramScope])
		}
	}
	return out
}
