package authn_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/switchboard-mcp/switchboard/relay/authn"
)

func TestAgentTokensAreKeptApartFromPersons(t *testing.T) {
	keys, err := authn.LoadHostKeys(writeFile(t, "host.pem", publicPEM(t, hostEdKey().Public())))
	if err != nil {
		t.Fatal(err)
	}
	v := authn.NewVerifier(authn.VerifierConfig{Audience: relayAudience, HostKeys: keys, HostIssuer: hostIssuer})
	now := time.Now()
	withAgent := func(agent any) string {
		c := hostClaims(now)
		if agent != nil {
			c[authn.AgentClaim] = agent
		}
		return sign(t, jwt.SigningMethodEdDSA, hostEdKey(), c, "")
	}

	person := withAgent(nil)
	named := withAgent("report-bot")
	narrowed := withAgent(map[string]any{"name": "n", "servers": []string{"s1"}, "tools": []string{"s1__t"}})

	if _, err := v.Verify(named); !errors.Is(err, authn.ErrAgentToken) {
		t.Errorf("Verify(agent token) error = %v, want ErrAgentToken: an agent opens no dashboard", err)
	}
	if _, err := v.VerifyAgent(person); !errors.Is(err, authn.ErrAgentToken) {
		t.Errorf("VerifyAgent(person token) error = %v, want ErrAgentToken", err)
	}
	if c, err := v.Verify(person); err != nil || c.Agent != nil || c.User != "host:ann" {
		t.Errorf("Verify(person) = %+v, %v", c, err)
	}
	c, err := v.VerifyAgent(named)
	if err != nil || c.Agent == nil || c.Agent.Name != "report-bot" || c.User != "host:ann" {
		t.Errorf("VerifyAgent(named) = %+v, %v", c, err)
	}
	c, err = v.VerifyAgent(narrowed)
	if err != nil || !slices.Equal(c.Agent.Servers, []string{"s1"}) || !slices.Equal(c.Agent.Tools, []string{"s1__t"}) {
		t.Errorf("VerifyAgent(narrowed) = %+v, %v", c.Agent, err)
	}
	for name, agent := range map[string]any{"empty name": "", "control character": "bot\x07", "a number": 7} {
		if _, err := v.VerifyAgent(withAgent(agent)); !errors.Is(err, authn.ErrMalformedToken) {
			t.Errorf("%s: error = %v, want ErrMalformedToken", name, err)
		}
	}
}
