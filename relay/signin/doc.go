// Package signin signs people in to the relay with the team's OpenID
// Connect identity provider: the authorization code flow with PKCE, the ID
// token verified against the provider's keys, the allowed people narrowed
// by email domain or group, and the provider's ID and refresh tokens kept
// sealed so that servers configured for cross-app access can be reached in
// the user's name.
package signin
