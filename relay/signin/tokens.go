package signin

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// expiryMargin renews an ID token this long before it expires, so that it
// is still valid when the identity provider reads it.
const expiryMargin = time.Minute

// IDToken returns the ID token the provider issued to user, renewed with
// the refresh token when it has expired; it is the source of ID tokens of
// cross-app access.
func (p *Provider) IDToken(ctx context.Context, user string) (string, error) {
	t, ok, err := p.cfg.Tokens.Get(ctx, user)
	if err != nil {
		return "", err
	}
	if !ok || t.Issuer != p.cfg.Issuer {
		return "", errNoToken
	}
	if time.Until(t.Expiry) > expiryMargin {
		return t.IDToken, nil
	}
	if t.RefreshToken == "" {
		return "", fmt.Errorf("the ID token has expired and the identity provider issued no refresh token: sign in again")
	}
	ctx = p.client(ctx)
	tok, err := p.oauth.TokenSource(ctx, &oauth2.Token{RefreshToken: t.RefreshToken, Expiry: time.Unix(1, 0)}).Token()
	if err != nil {
		return "", fmt.Errorf("renew the ID token: %w", err)
	}
	raw, _ := tok.Extra("id_token").(string)
	idt, err := p.verifier.Verify(ctx, raw)
	if err != nil {
		return "", fmt.Errorf("renew the ID token: %w", err)
	}
	if p.UserID(idt.Subject) != user {
		return "", fmt.Errorf("renew the ID token: the provider answered for another subject")
	}
	refresh := tok.RefreshToken
	if refresh == "" {
		refresh = t.RefreshToken
	}
	if err := p.cfg.Tokens.Put(ctx, store.IdentityToken{User: user, Issuer: p.cfg.Issuer, IDToken: raw, RefreshToken: refresh, Expiry: idt.Expiry}); err != nil {
		return "", err
	}
	return raw, nil
}
