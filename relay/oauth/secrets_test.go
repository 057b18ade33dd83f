package oauth_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/relay/conn"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestNoTokenCodeOrSecretReachesStatesErrorsOrLogs(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, adminScope)
	ctx := context.Background()
	var secrets, texts []string
	keep := func(user string) {
		if tok, ok := w.token(user, "s1"); ok {
			secrets = append(secrets, tok.AccessToken, tok.RefreshToken)
		}
		if c, ok, _ := w.oauth.Client(ctx, user, "s1", store.ClientDynamic); ok && c.ClientSecret != "" {
			secrets = append(secrets, c.ClientSecret)
		}
	}
	call := func(c interface {
		CallTool(context.Context, *mcp.CallToolParams, func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error)
	}, tool string) {
		if _, err := c.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(`{"text":"x"}`)}, nil); err != nil {
			texts = append(texts, err.Error())
		}
	}

	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	r.AwaitState(wire.StateAuthenticating)
	_, cb := w.authorize("ann", "s1")
	secrets = append(secrets, cb.Query().Get("code"))
	if err := w.mgr.Callback(ctx, cb); err != nil {
		t.Fatal(err)
	}
	r.AwaitState(wire.StateReady)
	keep("ann")

	w.as.RevokeAccessTokens() // refresh on 401
	call(c, oauthfixture.ToolEcho)
	keep("ann")

	done := callAdmin(c) // step-up
	r.AwaitState(wire.StateAuthenticating)
	w.complete("ann", "s1")
	if err := <-done; err != nil {
		texts = append(texts, err.Error())
	}
	keep("ann")

	w.as.RevokeAccessTokens() // failed refresh
	w.as.RevokeRefreshTokens()
	call(c, oauthfixture.ToolEcho)
	r.Await("authenticating", func(s conn.State) bool { return s.State == wire.StateAuthenticating && !s.Auth.Authorized })
	if err := w.mgr.Callback(ctx, cb); err != nil { // a replay
		texts = append(texts, err.Error())
	}

	for _, req := range w.rs.Requests() {
		if req.Token != "" {
			secrets = append(secrets, req.Token)
		}
	}
	texts = append(texts, r.AllJSON(), w.logs.String())
	if len(secrets) < 6 {
		t.Fatalf("only %d secrets collected; the scenario did not run", len(secrets))
	}
	for _, s := range secrets {
		if s == "" {
			continue
		}
		for _, text := range texts {
			if strings.Contains(text, s) {
				t.Errorf("a secret (%.6s…) appears in %.200q", s, text)
			}
		}
	}
}
