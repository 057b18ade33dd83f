package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/switchboard-mcp/switchboard/relay/buildinfo"
)

// registry holds every metric of the relay, and the Go runtime's and the
// process's collectors.
var registry = prometheus.NewRegistry()

// Routes a call comes by.
const (
	RouteDashboard = "dashboard" // a person, from a dashboard
	RouteAgent     = "agent"     // an agent, through /mcp, /mcp/s/<id> or /api/tools
	RouteChat      = "chat"      // the person's own chat
)

// Outcomes of a call, an exchange or a request.
const (
	OutcomeOK     = "ok"     // it succeeded
	OutcomeError  = "error"  // a tool answered with an error result
	OutcomeFailed = "failed" // it did not complete: refused, unreachable, timed out, cancelled
)

var (
	buildInfo = newGauge(prometheus.GaugeOpts{Name: "switchboard_build_info",
		Help: "Always 1; the version label is the running build's."}, "version")
	connections = newGauge(prometheus.GaugeOpts{Name: "switchboard_connections",
		Help: "Connections to MCP servers, by state."}, "state")
	calls = newCounter(prometheus.CounterOpts{Name: "switchboard_calls_total",
		Help: "Calls on servers (tools, prompts, resource reads) that ended, by route, kind and outcome."}, "route", "kind", "outcome")
	callDuration = newHistogram(prometheus.HistogramOpts{Name: "switchboard_call_duration_seconds",
		Help:    "How long calls on servers took, by route, kind and outcome.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}}, "route", "kind", "outcome")
	asks = newCounter(prometheus.CounterOpts{Name: "switchboard_asks_total",
		Help: "Questions servers asked people (elicitation, sampling), by kind and event: raised, answered, timed_out."}, "kind", "event")
	dashboards = newGauge(prometheus.GaugeOpts{Name: "switchboard_dashboards",
		Help: "Dashboards connected now."})
	deltas = newCounter(prometheus.CounterOpts{Name: "switchboard_dashboard_deltas_total",
		Help: "Delta frames sent to dashboards (one per dashboard it went to)."})
	sentBytes = newCounter(prometheus.CounterOpts{Name: "switchboard_dashboard_sent_bytes_total",
		Help: "Bytes of frames written to dashboards' WebSockets."})
	oauthTokens = newCounter(prometheus.CounterOpts{Name: "switchboard_oauth_token_requests_total",
		Help: "Requests to servers' token endpoints, by grant type (authorization_code, refresh_token, ...) and outcome."}, "grant", "outcome")
	storeTx = newHistogram(prometheus.HistogramOpts{Name: "switchboard_store_transaction_duration_seconds",
		Help:    "How long the store's transactions took, by outcome.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 5}}, "outcome")
	gatewaySessions = newCounter(prometheus.CounterOpts{Name: "switchboard_gateway_sessions_opened_total",
		Help: "MCP sessions agents opened on the agent endpoint."})
	refusals = newCounter(prometheus.CounterOpts{Name: "switchboard_rate_limit_refusals_total",
		Help: "Agent requests refused with 429, by limit: requests (the key's rate) or sessions (the key's session cap)."}, "limit")
	modelRequests = newCounter(prometheus.CounterOpts{Name: "switchboard_model_requests_total",
		Help: "Requests to model providers, by provider kind and outcome."}, "provider", "outcome")
	modelTokens = newCounter(prometheus.CounterOpts{Name: "switchboard_model_tokens_total",
		Help: "Tokens models read and wrote, by provider kind and direction (input, output)."}, "provider", "direction")
)

func init() {
	registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	buildInfo.WithLabelValues(buildinfo.Version()).Set(1)
}

func newGauge(o prometheus.GaugeOpts, labels ...string) *prometheus.GaugeVec {
	g := prometheus.NewGaugeVec(o, labels)
	registry.MustRegister(g)
	return g
}

func newCounter(o prometheus.CounterOpts, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(o, labels)
	registry.MustRegister(c)
	return c
}

func newHistogram(o prometheus.HistogramOpts, labels ...string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(o, labels)
	registry.MustRegister(h)
	return h
}

// Handler serves every metric in the Prometheus text format.
func Handler() http.Handler {
	return promhttp.HandlerFor(registry, promhttp.HandlerOpts{})
}

// Call starts timing a call of kind (tool, prompt, resource) by route; the
// function it returns records the call's end with its outcome.
func Call(route, kind string) func(outcome string) {
	start := time.Now()
	return func(outcome string) {
		calls.WithLabelValues(route, kind, outcome).Inc()
		callDuration.WithLabelValues(route, kind, outcome).Observe(time.Since(start).Seconds())
	}
}

// ConnectionMoved notes a connection going from state from to state to;
// from is empty for a new connection, to for one that went away.
func ConnectionMoved(from, to string) {
	if from == to {
		return
	}
	if from != "" {
		connections.WithLabelValues(from).Dec()
	}
	if to != "" {
		connections.WithLabelValues(to).Inc()
	}
}

// Ask notes an event (raised, answered, timed_out) of a question of kind.
func Ask(kind, event string) { asks.WithLabelValues(kind, event).Inc() }

// Events of a question.
const (
	AskRaised   = "raised"
	AskAnswered = "answered"
	AskTimedOut = "timed_out"
)

// Dashboard notes a dashboard attached; the function it returns notes it
// left.
func Dashboard() (left func()) {
	g := dashboards.WithLabelValues()
	g.Inc()
	return g.Dec
}

// DeltaSent notes a delta frame sent to n dashboards.
func DeltaSent(n int) { deltas.WithLabelValues().Add(float64(n)) }

// Sent notes n bytes written to a dashboard.
func Sent(n int) { sentBytes.WithLabelValues().Add(float64(n)) }

// TokenRequest notes a request to a token endpoint with grant ending in err.
func TokenRequest(grant string, err error) {
	oauthTokens.WithLabelValues(grant, outcomeOf(err)).Inc()
}

// StoreTransaction notes a store transaction that began at start and ended
// with err.
func StoreTransaction(start time.Time, err error) {
	storeTx.WithLabelValues(outcomeOf(err)).Observe(time.Since(start).Seconds())
}

// GatewaySessionOpened notes an MCP session an agent opened.
func GatewaySessionOpened() { gatewaySessions.WithLabelValues().Inc() }

// Limits an agent request is refused by.
const (
	LimitRequests = "requests"
	LimitSessions = "sessions"
)

// Refused notes an agent request refused by limit.
func Refused(limit string) { refusals.WithLabelValues(limit).Inc() }

// ModelRequest notes a request to a model of provider that ended with err,
// and the tokens it read and wrote.
func ModelRequest(provider string, input, output int, err error) {
	modelRequests.WithLabelValues(provider, outcomeOf(err)).Inc()
	modelTokens.WithLabelValues(provider, "input").Add(float64(input))
	modelTokens.WithLabelValues(provider, "output").Add(float64(output))
}

// outcomeOf is OutcomeOK for no error, OutcomeFailed otherwise.
func outcomeOf(err error) string {
	if err != nil {
		return OutcomeFailed
	}
	return OutcomeOK
}
