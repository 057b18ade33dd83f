package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/switchboard-mcp/switchboard/relay/oauth"
)

// oauthFlags configure the relay's OAuth client.
type oauthFlags struct {
	metadataURL, successURL, errorURL, clientsFile *string
}

func addOAuthFlags(fs *flagSet) oauthFlags {
	return oauthFlags{
		metadataURL: fs.String("oauth-client-metadata-url", "", "https URL, routed to this relay, at which it serves its OAuth client ID metadata document (its client id where authorization servers support them)"),
		successURL:  fs.String("oauth-success-url", "", "absolute http(s) URL or path on the relay where the OAuth popup goes after a successful authorization (default: a page that closes it)"),
		errorURL:    fs.String("oauth-error-url", "", "absolute http(s) URL or path on the relay where the OAuth popup goes after a failed authorization, with an error parameter (default: a plain error page)"),
		clientsFile: fs.String("oauth-clients", "", `JSON file of pre-registered OAuth clients: [{"issuer": "...", "server": "...", "client_id": "...", "client_secret": "..."}]`),
	}
}

// clients reads the pre-registered clients file, if any.
func (f oauthFlags) clients() ([]oauth.Credentials, error) {
	if *f.clientsFile == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(*f.clientsFile)
	if err != nil {
		return nil, fmt.Errorf("--oauth-clients: %w", err)
	}
	var out []oauth.Credentials
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("--oauth-clients %s: %w", *f.clientsFile, err)
	}
	return out, nil
}
