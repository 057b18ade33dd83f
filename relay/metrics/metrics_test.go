package metrics

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape parses what Handler serves.
func scrape(t testing.TB) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return fams
}

// gauge is the value of the gauge name whose label is value.
func gauge(fams map[string]*dto.MetricFamily, name, value string) float64 {
	for _, m := range fams[name].GetMetric() {
		if len(m.Label) == 1 && m.Label[0].GetValue() == value {
			return m.Gauge.GetValue()
		}
	}
	return 0
}

func TestConnectionsMoveBetweenStates(t *testing.T) {
	ConnectionMoved("", "connecting")
	ConnectionMoved("connecting", "ready")
	ConnectionMoved("", "connecting")
	fams := scrape(t)
	if c, r := gauge(fams, "switchboard_connections", "connecting"), gauge(fams, "switchboard_connections", "ready"); c != 1 || r != 1 {
		t.Errorf("connecting %v, ready %v; want 1 and 1", c, r)
	}
	ConnectionMoved("ready", "")
	ConnectionMoved("connecting", "")
	fams = scrape(t)
	if c, r := gauge(fams, "switchboard_connections", "connecting"), gauge(fams, "switchboard_connections", "ready"); c != 0 || r != 0 {
		t.Errorf("after both went: connecting %v, ready %v", c, r)
	}
}

func TestModelRequestCountsTokensAndFailures(t *testing.T) {
	ModelRequest("anthropic", 120, 30, nil)
	ModelRequest("anthropic", 0, 0, errors.New("refused"))
	fams := scrape(t)
	var ok, failed, in, out float64
	for _, m := range fams["switchboard_model_requests_total"].GetMetric() {
		switch m.Label[0].GetValue() + "/" + m.Label[1].GetValue() {
		case "ok/anthropic", "anthropic/ok":
			ok = m.Counter.GetValue()
		case "failed/anthropic", "anthropic/failed":
			failed = m.Counter.GetValue()
		}
	}
	for _, m := range fams["switchboard_model_tokens_total"].GetMetric() {
		switch m.Label[0].GetValue() {
		case "input":
			in = m.Counter.GetValue()
		case "output":
			out = m.Counter.GetValue()
		}
	}
	if ok != 1 || failed != 1 || in != 120 || out != 30 {
		t.Errorf("requests ok %v failed %v, tokens in %v out %v; want 1, 1, 120, 30", ok, failed, in, out)
	}
}

// BenchmarkCall is what the metrics add to one call on the call path.
func BenchmarkCall(b *testing.B) {
	for b.Loop() {
		Call(RouteAgent, "tool")(OutcomeOK)
	}
}
