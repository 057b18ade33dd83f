package web

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestConsentCardShowsTheClientAsTextWithItsWarnings(t *testing.T) {
	p := &ConsentPage{}
	card := wire.AgentConsent{
		ClientName: hostile, ClientID: "https://evil.example/c", ClientHost: "evil.example", Verified: true,
		RedirectHost: "evil.example", Endpoint: "http://127.0.0.1:8080/mcp", Servers: []string{"s1", "s2"},
		NameMismatch: true, NewHost: true,
	}
	html := rendered(t, p.renderCard(card, servers()))
	for _, id := range []string{`id="consent-host"`, `id="consent-mismatch"`, `id="consent-new-host"`, `id="consent-approve"`, `id="consent-deny"`,
		`id="consent-server-s1"`, `id="consent-server-s2"`} {
		if element(html, id) == "" {
			t.Errorf("the card lacks %s:\n%s", id, html)
		}
	}
	if !strings.Contains(html, ">evil.example<") {
		t.Errorf("the host is not shown:\n%s", html)
	}
	card.NameMismatch, card.NewHost = false, false
	if html := rendered(t, p.renderCard(card, servers())); element(html, `id="consent-mismatch"`) != "" || element(html, `id="consent-new-host"`) != "" {
		t.Errorf("warnings shown without cause:\n%s", html)
	}
}

func TestGrantListShowsClientsAsText(t *testing.T) {
	g := &AgentGrants{Servers: servers(), grants: []wire.AgentGrant{
		{ID: "g1", ClientName: hostile, ClientHost: "evil.example", Endpoint: "http://127.0.0.1:8080/mcp", AllServers: true, Created: time.Now()},
		{ID: "g2", ClientName: "old", Servers: []string{"s1"}, Created: time.Now(), Revoked: time.Now()},
	}}
	html := rendered(t, g.Render())
	if element(html, `data-grant-id="g1"`, `data-state="active"`) == "" || element(html, `data-grant-id="g2"`, `data-state="revoked"`) == "" {
		t.Errorf("the grants are not listed with their states:\n%s", html)
	}
	if n := strings.Count(html, "sb-grant-revoke"); n != 1 {
		t.Errorf("%d revoke buttons, want one for the active grant", n)
	}
}
