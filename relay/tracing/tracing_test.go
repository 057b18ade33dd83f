package tracing

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

func TestSetupFollowsTheEnvironment(t *testing.T) {
	for _, c := range []struct {
		env     map[string]string
		enabled bool
		refused string
	}{
		{map[string]string{}, false, ""},
		{map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, false, ""},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, true, ""},
		{map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, true, "OTLP only"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, true, "http/protobuf only"},
	} {
		for _, name := range []string{"OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
			t.Setenv(name, c.env[name])
		}
		if got := Enabled(); got != c.enabled {
			t.Errorf("%v: enabled %v, want %v", c.env, got, c.enabled)
		}
		if c.refused == "" {
			continue
		}
		if _, err := Setup(context.Background()); err == nil || !strings.Contains(err.Error(), c.refused) {
			t.Errorf("%v: Setup %v, want a refusal saying %q", c.env, err, c.refused)
		}
	}
}

func TestClientSendsTraceparentOnlyInASpan(t *testing.T) {
	heard := make(chan string, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { heard <- r.Header.Get("Traceparent") }))
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL) // the exporter is never flushed to it
	stop, err := Setup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop(context.Background())
	hc := Client(srv.Client())
	get := func(ctx context.Context) string {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return <-heard
	}
	if tp := get(context.Background()); tp != "" {
		t.Errorf("a request outside any span carried traceparent %q", tp)
	}
	ctx, span := Start(context.Background(), "test")
	defer span.End()
	sc := trace.SpanContextFromContext(ctx)
	if tp, want := get(ctx), "00-"+sc.TraceID().String()+"-"+sc.SpanID().String()+"-01"; tp != want {
		t.Errorf("traceparent %q, want %q", tp, want)
	}
}
