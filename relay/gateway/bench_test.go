package gateway_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/agentkeys"
	"github.com/switchboard-mcp/switchboard/relay/broker"
	"github.com/switchboard-mcp/switchboard/relay/gateway"
)

// BenchmarkToolCallThroughGateway calls the same loopback tool through the
// gateway and directly with the go-sdk client, alternating, and reports the
// p50 and p99 of each and their ratios. Run it short:
//
//	go test -run '^$' -bench ToolCallThroughGateway -benchtime=200x ./relay/gateway/
func BenchmarkToolCallThroughGateway(b *testing.B) {
	r := newRelayLimited(b, broker.Config{}, 1e6)
	up := startUpstream(b)
	id := r.add("alice", "bench", up.url)
	r.keys.put("kb", agentkeys.Grant{User: "alice", Agent: "bench", KeyID: "keyb"})
	agent := r.connect("kb", gateway.Path, eras[0])

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "direct", Version: "1"}, nil)
	direct, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: up.url, HTTPClient: &http.Client{}}, &mcp.ClientSessionOptions{ProtocolVersion: eras[0]})
	if err != nil {
		b.Fatal(err)
	}
	defer direct.Close()

	call := func(cs *mcp.ClientSession, name string) time.Duration {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"a": 1}})
		if err != nil || res.IsError {
			b.Fatalf("call %s: %v", name, err)
		}
		return time.Since(start)
	}
	for range 10 { // warm both paths
		call(direct, "echo")
		call(agent.cs, id+"__echo")
	}
	var viaGateway, viaDirect []time.Duration
	b.ResetTimer()
	for range b.N {
		viaDirect = append(viaDirect, call(direct, "echo"))
		viaGateway = append(viaGateway, call(agent.cs, id+"__echo"))
	}
	b.StopTimer()
	dp50, dp99 := percentiles(viaDirect)
	gp50, gp99 := percentiles(viaGateway)
	b.ReportMetric(float64(dp50.Microseconds()), "direct-p50-µs")
	b.ReportMetric(float64(dp99.Microseconds()), "direct-p99-µs")
	b.ReportMetric(float64(gp50.Microseconds()), "gateway-p50-µs")
	b.ReportMetric(float64(gp99.Microseconds()), "gateway-p99-µs")
	b.ReportMetric(float64((gp50 - dp50).Microseconds()), "added-p50-µs")
	b.ReportMetric(float64(gp50)/float64(dp50), "p50-ratio")
	b.ReportMetric(float64(gp99)/float64(dp99), "p99-ratio")
}

// percentiles returns the 50th and 99th percentiles of ds.
func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2], s[min(len(s)-1, len(s)*99/100)]
}
