package tracing

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-mcp/switchboard/relay/buildinfo"
)

// instrumentation names the relay's spans' tracer.
const instrumentation = "github.com/switchboard-mcp/switchboard/relay"

// serviceName is the service.name of the relay's spans unless
// OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) says otherwise.
const serviceName = "switchboard"

// Enabled reports whether the environment asks for traces.
func Enabled() bool {
	switch os.Getenv("OTEL_TRACES_EXPORTER") {
	case "none":
		return false
	case "":
		return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
	}
	return true
}

// Setup installs the tracer provider the environment asks for (see the
// package doc) as the process's, and returns the function that flushes
// and stops it. When tracing is off it installs nothing and the function
// does nothing.
func Setup(ctx context.Context) (shutdown func(context.Context) error, err error) {
	off := func(context.Context) error { return nil }
	if !Enabled() {
		return off, nil
	}
	if e := os.Getenv("OTEL_TRACES_EXPORTER"); e != "" && e != "otlp" {
		return off, fmt.Errorf("OTEL_TRACES_EXPORTER=%q: the relay exports traces over OTLP only (otlp or none)", e)
	}
	if p := protocol(); p != "http/protobuf" {
		return off, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%q: the relay exports traces over http/protobuf only", p)
	}
	exp, err := otlptracehttp.New(ctx) // endpoint, headers, timeout, TLS from OTEL_EXPORTER_OTLP_*
	if err != nil {
		return off, fmt.Errorf("otlp trace exporter: %w", err)
	}
	res, err := resource.Merge(
		resource.NewSchemaless(semconv.ServiceName(serviceName), semconv.ServiceVersion(buildinfo.Version())),
		resource.Environment()) // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
	if err != nil {
		return off, fmt.Errorf("trace resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res)) // OTEL_TRACES_SAMPLER, OTEL_BSP_*
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return tp.Shutdown, nil
}

// protocol is the OTLP protocol the environment names for traces.
func protocol() string {
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := os.Getenv(name); p != "" {
			return p
		}
	}
	return "http/protobuf"
}

// Start opens a span named name in ctx with attrs.
func Start(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	return otel.Tracer(instrumentation).Start(ctx, name, trace.WithAttributes(attrs...))
}

// End ends span, marked as failed when err is set. The error's text stays
// out of the span: it may carry what a server or a person sent.
func End(span trace.Span, err error) {
	if err != nil && !errors.Is(err, context.Canceled) {
		span.SetStatus(codes.Error, "failed")
	}
	span.End()
}

// Client returns a copy of hc whose requests carry the trace context of
// their request's context (traceparent, tracestate), for MCP servers.
func Client(hc *http.Client) *http.Client {
	c := *hc
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = &injector{base: base}
	return &c
}

// injector is a RoundTripper that adds the trace context to requests.
type injector struct{ base http.RoundTripper }

func (t *injector) RoundTrip(req *http.Request) (*http.Response, error) {
	if !trace.SpanContextFromContext(req.Context()).IsValid() {
		return t.base.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	otel.GetTextMapPropagator().Inject(req.Context(), propagation.HeaderCarrier(req.Header))
	return t.base.RoundTrip(req)
}

// Detach returns a context that carries ctx's span but neither its
// deadline, its cancellation nor its other values: for work that outlives
// the request that started it but belongs to its trace.
func Detach(ctx context.Context) context.Context {
	return trace.ContextWithSpan(context.Background(), trace.SpanFromContext(ctx))
}

// Handler serves h with each request in a server span named name, a child
// of the trace context the request carries (an agent's traceparent).
func Handler(name string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := otel.Tracer(instrumentation).Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("http.request.method", r.Method)))
		defer span.End()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}
