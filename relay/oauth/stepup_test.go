package oauth_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// adminScope is what the admin tool needs besides mcp:read.
var adminScope = oauthfixture.ResourceConfig{
	Scopes:     []string{"mcp:read"},
	ToolScopes: map[string][]string{oauthfixture.ToolAdmin: {"mcp:admin"}},
}

// callAdmin calls the admin tool in the background.
func callAdmin(c interface {
	CallTool(context.Context, *mcp.CallToolParams, func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error)
}) <-chan error {
	done := make(chan error, 1)
	go func() {
		res, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: oauthfixture.ToolAdmin, Arguments: nil}, nil)
		if err == nil && (len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "done") {
			err = &wire.Error{Code: "unexpected", Message: "unexpected result"}
		}
		done <- err
	}()
	return done
}

func TestStepUpAsksForMoreScopeAndRetriesTheCall(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{}, adminScope)
	c, r := authorized(t, w)
	done := callAdmin(c)

	waiting := r.AwaitState(wire.StateAuthenticating)
	if waiting.Auth == nil || !waiting.Auth.Authorized || !slices.Contains(waiting.Auth.Scopes, "mcp:admin") || !slices.Contains(waiting.Auth.Scopes, "mcp:read") {
		t.Fatalf("auth while stepping up %+v, want the granted and the new scope", waiting.Auth)
	}
	authURL := w.complete("ann", "s1")
	scopes := strings.Fields(mustQuery(t, authURL).Get("scope"))
	for _, want := range []string{"mcp:read", "mcp:admin", "offline_access"} {
		if !slices.Contains(scopes, want) {
			t.Errorf("step-up scopes %v lack %s", scopes, want)
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("admin call after step-up: %v", err)
	}
	r.AwaitState(wire.StateReady)
	echo(t, c, "still works")
	if n := w.as.Stats().Authorizations; n != 2 {
		t.Errorf("%d authorizations, want 2", n)
	}
}

func TestStepUpForACallGivesUpAfterThreeAuthorizations(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{WithheldScopes: []string{"mcp:admin"}}, adminScope)
	c, r := authorized(t, w)
	approvals := w.autoApprove("ann", "s1", r)
	err := <-callAdmin(c)
	if err == nil {
		t.Fatal("the admin call succeeded although the scope is never granted")
	}
	if n := w.as.Stats().Authorizations - 1; n != 3 {
		t.Errorf("%d step-up authorizations, want 3", n)
	}
	if approvals.get() != 3 {
		t.Errorf("the server waited for a person %d times, want 3", approvals.get())
	}
	r.AwaitState(wire.StateReady)
	echo(t, c, "the connection is still fine")
}

func TestConnectionGivesUpAfterThreeAuthorizationsThatDoNotHelp(t *testing.T) {
	w := newWorld(t, oauthfixture.AuthConfig{WithheldScopes: []string{"mcp:admin"}},
		oauthfixture.ResourceConfig{Scopes: []string{"mcp:read"}, StepUpScopes: []string{"mcp:admin"}})
	c, r := w.connect("ann", "s1", w.rs.URL(), "")
	w.autoApprove("ann", "s1", r)
	failed := r.AwaitState(wire.StateFailed)
	if !strings.Contains(failed.Error, "after 3 authorizations") {
		t.Errorf("error %q", failed.Error)
	}
	if n := w.as.Stats().Authorizations; n != 3 {
		t.Errorf("%d authorizations, want 3", n)
	}
	// Without Retry it stays failed; Retry starts over.
	c.Retry()
	r.AwaitState(wire.StateAuthenticating)
}
