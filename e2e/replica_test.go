package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/e2e/elicitfixture"
	"github.com/switchboard-mcp/switchboard/e2e/fixture"
	"github.com/switchboard-mcp/switchboard/e2e/oauthfixture"
	"github.com/switchboard-mcp/switchboard/relay/cli"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
	"github.com/switchboard-mcp/switchboard/relay/hub/dashtest"
	"github.com/switchboard-mcp/switchboard/relay/replica"
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

// The switchboard command the replica tests run as a process, to kill it,
// built by the first (replicaBinary) and removed by TestMain.
var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func replicaBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "switchboard-e2e-bin-"); binErr == nil {
			binPath, binErr = replicatest.Build(os.Getenv("GO"), binDir)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// stopReplicaFixtures stops what the replica tests started for the run.
func stopReplicaFixtures() {
	if pgServer != nil {
		pgServer.Stop()
	}
	if binDir != "" {
		os.RemoveAll(binDir)
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

// Three replicas, the person's owner a process of its own: the person's
// dashboard (the browser, on A) authorizes an OAuth-protected server and
// answers the questions of two agents' calls on C, one with an agent key,
// one with a grant the person gave it on C's consent page. The owner, B,
// is killed with SIGKILL while a question waits: the agent's call ends
// saying the relay restarted, the page (never reloaded) says the question
// was withdrawn and shows both servers ready again within 5 s, served by A
// or C, the protected one with no new authorization; each agent's next
// call, same session, is answered in the page; the registrations, the key,
// the grant and the server's token are still there.
func TestTheOwnersKillMidCallAcrossThreeReplicas(t *testing.T) {
	dbURL := postgresURL(t)
	t.Setenv(store.SealKeyEnv, replicatest.SealKey)
	ctx := context.Background()
	asker := elicitfixture.Start(t, elicitfixture.Options{})
	form := elicitfixture.Forms[0]
	as := oauthfixture.StartAuthServer(t, oauthfixture.AuthConfig{})
	rs := oauthfixture.StartResource(t, oauthfixture.ResourceConfig{AuthServer: as, Scopes: []string{readScope}})
	a, c := startReplica(t, dbURL), startReplica(t, dbURL)
	// A is the balancer's address: the authorization server's callback
	// comes to A, which sends it to B.
	b := replicatest.StartProcess(t, replicaBinary(t), "B", dbURL, "--public-url", a.URL())
	st, err := store.OpenTarget(ctx, dbURL, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	owner := func() string { return replicatest.OwnerOf(t, st, localUser) }

	// The servers are registered as the command line does; the person's
	// first socket, on B, makes B the owner.
	for name, url := range map[string]string{askerName: asker.URL(), protectedName: rs.URL()} {
		if err := cli.Servers([]string{"add", "--store", dbURL, "--data", t.TempDir(), "--user", localUser, "--name", name, "--url", url}, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	first := dashtest.Open(t, b.Public, http.Header{"Authorization": {"Bearer " + a.mint(t, localUser, time.Hour)}, "Origin": {b.Public}})
	first.WaitUntil("the servers up on B", func() bool {
		return first.State(askerName) == wire.StateReady && first.State(protectedName) == wire.StateAuthenticating
	})
	if got := owner(); got != b.Internal {
		t.Fatalf("the owner is %q, want B (%s)", got, b.Internal)
	}

	// On A, the person authorizes the protected server.
	p := openTab(t)
	p.login(a)
	p.waitServer(askerName, wire.StateReady)
	p.waitServer(protectedName, wire.StateAuthenticating)
	popup := p.authorizeFrom(rowSel(protectedName))
	popup.click("#approve")
	popup.waitClosed()
	p.waitServer(protectedName, wire.StateReady)
	authorized := as.Stats()
	if authorized.Codes != 1 {
		t.Errorf("the authorization server saw %d code exchanges, want 1", authorized.Codes)
	}
	eval[any](p, setReloadMarker)
	server, protected := p.serverID(askerName), p.serverID(protectedName)

	// Two agents on C: one with a key, one that adds the relay by its URL,
	// the person consenting on C's consent page (in the browser the client
	// opens, which is then done).
	keyed, _ := connectAgent(t, c, gateway.Path)
	redirect, callback := callbackServer(t)
	consent := openTab(t)
	connectCtx, cancel := context.WithTimeout(ctx, consentTimeout)
	defer cancel()
	granted, err := mcp.NewClient(&mcp.Implementation{Name: "desk-assistant", Version: "1"}, nil).Connect(connectCtx,
		&mcp.StreamableClientTransport{Endpoint: c.URL() + gateway.Path, OAuthHandler: consentingOAuthHandler(t, c, consent, redirect, callback)}, nil)
	if err != nil {
		t.Fatalf("the client adds relay C by its URL: %v", err)
	}
	defer granted.Close()
	consent.navigate("about:blank")

	call := func(agent *mcp.ClientSession) <-chan error {
		done := make(chan error, 1)
		go func() {
			res, err := agent.CallTool(ctx, &mcp.CallToolParams{Name: server + "__form_" + form.Name, Arguments: map[string]any{}})
			if err == nil && res.IsError {
				err = fmt.Errorf("the call failed: %v", res.Content)
			}
			done <- err
		}()
		return done
	}
	var asked []string // the questions the page showed, in turn
	ask := func() string {
		id := p.waitNewCard(wire.AskForm, asked)
		asked = append(asked, id)
		return id
	}
	answered := func(agent *mcp.ClientSession, what string) {
		t.Helper()
		done := call(agent)
		id := ask()
		p.fillForm(id, form.Example)
		p.click(cardSel(id) + " .ask-accept")
		p.waitGone(cardSel(id))
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		case <-time.After(waitTimeout):
			t.Fatalf("%s did not end within %v of the answer", what, waitTimeout)
		}
	}

	answered(keyed, "the keyed agent's call through C, answered on A")
	answered(granted, "the granted agent's call through C, answered on A")

	done := call(keyed)
	waiting := ask()
	killed := time.Now()
	b.Kill(t)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), replica.Interrupted) {
			t.Errorf("the call B ran when it was killed ended with %v, want %q", err, replica.Interrupted)
		}
	case <-time.After(waitTimeout):
		t.Errorf("the call B ran when it was killed did not end within %v", waitTimeout)
	}
	p.waitText(noticeSel(waiting), webstore.MsgRestarted)
	waitFor(t, "A or C to own the person", func() bool { o := owner(); return o == a.cfg.ReplicaAddr || o == c.cfg.ReplicaAddr })
	p.waitRelay(stateLive)
	p.waitServer(askerName, wire.StateReady)
	p.waitServer(protectedName, wire.StateReady)
	took := time.Since(killed)
	t.Logf("served again %v after B's kill", took.Round(time.Millisecond))
	if took > 5*time.Second {
		t.Errorf("the servers were ready again %v after B's kill, want within 5 s", took)
	}
	if !eval[bool](p, checkReloadMarker) {
		t.Error("the page was reloaded")
	}
	if got := as.Stats(); got.Codes != authorized.Codes || got.Authorizations != authorized.Authorizations {
		t.Errorf("after B's kill the authorization server saw %d authorizations and %d code exchanges, want %d and %d: the server was authorized again",
			got.Authorizations, got.Codes, authorized.Authorizations, authorized.Codes)
	}

	answered(keyed, "the keyed agent's next call after B's kill")
	answered(granted, "the granted agent's next call after B's kill")
	if regs, err := st.Servers(ctx, localUser); err != nil || len(regs) != 2 ||
		!slices.ContainsFunc(regs, func(r store.Server) bool { return r.ID == server && r.Name == askerName }) ||
		!slices.ContainsFunc(regs, func(r store.Server) bool { return r.ID == protected && r.Name == protectedName }) {
		t.Errorf("registrations after B's kill: %+v, %v", regs, err)
	}
	if keys, err := st.AgentKeys(ctx, localUser); err != nil || len(keys) != 1 || keys[0].Name != agentName {
		t.Errorf("agent keys after B's kill: %+v, %v", keys, err)
	}
	if grants, err := st.AgentGrants(ctx, localUser); err != nil || len(grants) != 1 || grants[0].ClientName != "Desk Assistant" || !grants[0].Revoked.IsZero() {
		t.Errorf("agent grants after B's kill: %+v, %v", grants, err)
	}
	sealer, err := store.LoadSealer(t.TempDir()) // the key of $SWITCHBOARD_SEAL_KEY
	if err != nil {
		t.Fatal(err)
	}
	if tok, ok, err := st.OAuth(sealer).Token(ctx, localUser, protected); err != nil || !ok || tok.AccessToken == "" {
		t.Errorf("the protected server's token after B's kill: found %v, an access token %v, %v", ok, tok.AccessToken != "", err)
	}
}
