// Package metricstest reads the relay's metrics as a scraper does, for
// tests: [Scrape] parses what metrics.Handler serves with the Prometheus
// text parser, and [Value] reads one series from it.
package metricstest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/switchboard-mcp/switchboard/relay/metrics"
)

// Families are the metric families of one scrape, by name.
type Families map[string]*dto.MetricFamily

// Scrape reads every metric from metrics.Handler with the Prometheus text
// parser.
func Scrape(t testing.TB) Families {
	t.Helper()
	rec := httptest.NewRecorder()
	metrics.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// Value is the sum over the series of the metric name whose labels include
// labels: a counter's or a gauge's value, a histogram's count of
// observations; 0 when there is none.
func (f Families) Value(name string, labels map[string]string) float64 {
	sum := 0.0
	for _, m := range f[name].GetMetric() {
		if !hasLabels(m, labels) {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		}
	}
	return sum
}

// Moved is how much the value of name with labels grew from before to f.
func (f Families) Moved(before Families, name string, labels map[string]string) float64 {
	return f.Value(name, labels) - before.Value(name, labels)
}

func hasLabels(m *dto.Metric, labels map[string]string) bool {
	for k, v := range labels {
		found := false
		for _, l := range m.Label {
			found = found || (l.GetName() == k && l.GetValue() == v)
		}
		if !found {
			return false
		}
	}
	return true
}
