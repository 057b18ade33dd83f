package conformance

import (
	"strings"
	"testing"
)

func TestParseContext(t *testing.T) {
	tests := []struct {
		name, raw string
		want      Context
		wantErr   bool
	}{
		{name: "empty means none", raw: ""},
		{name: "pre-registered client", raw: `{"name":"auth/pre-registration","client_id":"pre-registered-client","client_secret":"s3"}`,
			want: Context{ClientID: "pre-registered-client", ClientSecret: "s3"}},
		{name: "machine client with a key", raw: `{"name":"x","client_id":"c","private_key_pem":"-----","signing_algorithm":"ES256"}`,
			want: Context{ClientID: "c", PrivateKeyPEM: "-----", SigningAlgorithm: "ES256"}},
		{name: "cross-app identity provider", raw: `{"client_id":"c","client_secret":"s","idp_client_id":"i","idp_id_token":"t","idp_issuer":"http://idp","idp_token_endpoint":"http://idp/token"}`,
			want: Context{ClientID: "c", ClientSecret: "s", IdPClientID: "i", IdPIDToken: "t", IdPIssuer: "http://idp", IdPTokenEndpoint: "http://idp/token"}},
		{name: "other members ignored", raw: `{"name":"x","color":"blue"}`},
		{name: "not JSON", raw: `client_id=x`, wantErr: true},
		{name: "wrong type", raw: `{"client_id":7}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseContext(tt.raw)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseContext(%q) error = %v, wantErr %v", tt.raw, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("ParseContext(%q) = %+v, want %+v", tt.raw, got, tt.want)
			}
		})
	}
}

func TestParseContextErrorsDoNotQuoteTheSecret(t *testing.T) {
	_, err := ParseContext(`{"client_id":"c","client_secret":"hunter2"`)
	if err == nil {
		t.Fatal("ParseContext accepted truncated JSON")
	}
	if got := err.Error(); strings.Contains(got, "hunter2") {
		t.Errorf("error %q quotes the secret", got)
	}
}
