package e2e

import (
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/e2e/elicitfixture"
	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/relay/replica/replicatest"
	"github.com/switchboard-mcp/switchboard/relay/service"
	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/relay/store/pgtest"
	"github.com/switchboard-mcp/switchboard/shared/wire"
	webstore "github.com/switchboard-mcp/switchboard/web/store"
)

// The PostgreSQL server of the replica tests, started by the first
// (postgresURL) and stopped by TestMain.
var (
	pgOnce   sync.Once
	pgServer *pgtest.Server
	pgErr    error
)

// postgresURL returns the URL of an empty schema of t's own.
func postgresURL(t *testing.T) string {
	t.Helper()
	pgOnce.Do(func() { pgServer, pgErr = pgtest.Start() })
	if pgErr != nil {
		t.Fatalf("the replica tests need PostgreSQL: %v", pgErr)
	}
	return pgServer.NewSchema(t)
}

func stopPostgres() {
	if pgServer != nil {
		pgServer.Stop()
	}
}

// startReplica starts a relay as a replica on the PostgreSQL store dbURL.
func startReplica(t *testing.T, dbURL string) *relay {
	t.Helper()
	return startRelayWith(t, func(c *service.Config) {
		c.Store = dbURL
		c.ReplicaAddr = freeLoopbackAddr(t)
	})
}

// The dashboard in the browser, on replica A, shows a person another
// replica owns; when that replica stops, the page (never reloaded) says
// the question that was waiting was withdrawn by the restart, and shows
// the servers ready again, served by A.
func TestDashboardFollowsItsPersonWhenTheirReplicaStops(t *testing.T) {
	dbURL := postgresURL(t)
	t.Setenv(store.SealKeyEnv, replicatest.SealKey) // every replica's
	fx := fixture.Start(t)
	asker := elicitfixture.Start(t, elicitfixture.Options{})
	const name, askerName = "Fixture", "Asker"
	a, b := startReplica(t, dbURL), startReplica(t, dbURL)

	// The person adds servers on B's dashboard: B owns them.
	pb := openTab(t)
	pb.login(b)
	pb.addServer(name, fx.URL())
	pb.addServer(askerName, asker.URL())
	pb.waitServer(name, wire.StateReady)
	pb.waitServer(askerName, wire.StateReady)

	// Their dashboard on A shows it, through B.
	pa := openTab(t)
	pa.login(a)
	pa.waitServer(name, wire.StateReady)
	eval[bool](pa, `window.sameDocument = true`)
	if !b.svc.Owns(service.DefaultLocalUser) || a.svc.Owns(service.DefaultLocalUser) {
		t.Fatalf("owned by A %v, B %v; want B", a.svc.Owns(service.DefaultLocalUser), b.svc.Owns(service.DefaultLocalUser))
	}

	// A call on A asks the person. B stops: A's page reconnects, A owns
	// the person, the question's card says the restart withdrew it, and
	// the server is ready.
	pa.openServer(askerName)
	pa.startCall("form_" + elicitfixture.Forms[0].Name)
	ask := pa.waitNewCard(wire.AskForm, nil)
	stopping := time.Now()
	b.stop()
	t.Logf("B stopped in %v", time.Since(stopping))
	waitFor(t, "A to own the person once the page reconnected", func() bool { return a.svc.Owns(service.DefaultLocalUser) })
	pa.waitRelay(stateLive)
	pa.waitText(noticeSel(ask), webstore.MsgRestarted)
	pa.waitServer(name, wire.StateReady)
	t.Logf("served by A %v after B began to stop", time.Since(stopping))
	if !eval[bool](pa, `window.sameDocument === true`) {
		t.Error("the page was reloaded")
	}
	pa.openServer(name)
	pa.callTool(fixture.ToolGreet, `{"name":"Ada"}`)
	pa.waitResult(fixture.ToolGreet, callOK, fixture.Greeting("Ada"))
}

// A server's OAuth flow runs through whichever replica each step reaches:
// the person's dashboard is on A, their servers on B, and the popup's start
// page and the authorization server's callback come to A, as through a
// load balancer whose address is A's; the server is ready on A's page.
func TestOAuthThroughAnotherReplicaThanTheOwner(t *testing.T) {
	dbURL := postgresURL(t)
	t.Setenv(store.SealKeyEnv, replicatest.SealKey)
	as := oauthfixture.StartAuthServer(t, oauthfixture.AuthConfig{})
	rs := oauthfixture.StartResource(t, oauthfixture.ResourceConfig{AuthServer: as, Scopes: []string{readScope}})
	a := startReplica(t, dbURL)
	b := startRelayWith(t, func(c *service.Config) {
		c.Store, c.ReplicaAddr = dbURL, freeLoopbackAddr(t)
		c.PublicURL = a.URL() // the balancer's address: callbacks come to A
	})

	pb := openTab(t)
	pb.login(b)
	pb.addServer(protectedName, rs.URL())
	pb.waitServer(protectedName, wire.StateAuthenticating)

	pa := openTab(t)
	pa.login(a)
	row := rowSel(protectedName)
	pa.waitServer(protectedName, wire.StateAuthenticating)
	pa.waitPresent(row + " .authorize-server")
	popup := pa.authorizeFrom(row)
	popup.click("#approve")
	popup.waitClosed()
	pa.waitServer(protectedName, wire.StateReady)
	if !b.svc.Owns(service.DefaultLocalUser) || a.svc.Owns(service.DefaultLocalUser) {
		t.Errorf("owned by A %v, B %v; want B throughout", a.svc.Owns(service.DefaultLocalUser), b.svc.Owns(service.DefaultLocalUser))
	}
	if st := as.Stats(); st.Codes != 1 {
		t.Errorf("the authorization server saw %d code exchanges, want 1", st.Codes)
	}
}
