package session

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/switchboard-mcp/switchboard/relay/metrics"
	"github.com/switchboard-mcp/switchboard/relay/tracing"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// route is the route a call of c comes by, as the metrics name it.
func (c Caller) route() string {
	switch {
	case c.Agent == nil:
		return metrics.RouteDashboard
	case c.Agent.Chat != "":
		return metrics.RouteChat
	}
	return metrics.RouteAgent
}

// observeCall opens the span of a call of kind for c and starts timing it;
// the function it returns ends both, with the call's outcome: a tool's
// error result (toolError) or the call's error.
func observeCall(ctx context.Context, c Caller, kind wire.CallKind) (context.Context, func(toolError bool, err error)) {
	route := c.route()
	done := metrics.Call(route, string(kind))
	ctx, span := tracing.Start(ctx, string(kind)+" call",
		attribute.String("switchboard.route", route), attribute.String("switchboard.call.kind", string(kind)))
	return ctx, func(toolError bool, err error) {
		outcome := metrics.OutcomeOK
		switch {
		case err != nil:
			outcome = metrics.OutcomeFailed
		case toolError:
			outcome = metrics.OutcomeError
		}
		done(outcome)
		span.SetAttributes(attribute.String("switchboard.outcome", outcome))
		tracing.End(span, err)
	}
}
