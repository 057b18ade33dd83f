package conn

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// agentKey marks a call's context with a name, as a caller would.
type agentKey struct{}

func TestServerRequestReadOnACallsStreamIsAttributedToThatCall(t *testing.T) {
	var r callRegistry
	ctx1, end1 := r.begin(context.WithValue(context.Background(), agentKey{}, "one"))
	defer end1()
	ctx2, end2 := r.begin(context.WithValue(context.Background(), agentKey{}, "two"))
	defer end2()
	id2, _ := callIDOf(ctx2)
	_ = ctx1

	msg := `{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"Pick","requestedSchema":{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}},"_meta":{"x":1}}}`
	r.scan(id2, []byte(msg))
	var p mcp.ElicitParams // as the go-sdk decodes it
	var m struct{ Params json.RawMessage }
	json.Unmarshal([]byte(msg), &m)
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatal(err)
	}
	call, lifetime, ok := r.attribute(context.Background(), methodElicit, &p)
	if !ok || call.Value(agentKey{}) != "two" {
		t.Fatalf("attributed to %+v (%v), want the call whose stream carried it", call.Value(agentKey{}), ok)
	}
	if lifetime != call {
		t.Error("a request read on a call's stream does not end with the call")
	}
	if _, _, ok := r.attribute(context.Background(), methodElicit, &p); ok {
		t.Error("with two calls in flight and nothing read along, a request was attributed")
	}

	sampling := `{"jsonrpc":"2.0","id":8,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}}`
	r.scan(id2, []byte(sampling))
	var sp mcp.CreateMessageParams
	json.Unmarshal([]byte(sampling), &m)
	if err := json.Unmarshal(m.Params, &sp); err != nil {
		t.Fatal(err)
	}
	if call, _, ok := r.attribute(context.Background(), methodSampling, &sp); !ok || call.Value(agentKey{}) != "two" {
		t.Errorf("sampling attributed to %+v (%v)", call.Value(agentKey{}), ok)
	}
}

func TestTheOnlyCallInFlightGetsAnUnreadRequest(t *testing.T) {
	var r callRegistry
	_, end := r.begin(context.WithValue(context.Background(), agentKey{}, "only"))
	call, _, ok := r.attribute(context.Background(), methodElicit, &mcp.ElicitParams{Message: "x"})
	if !ok || call.Value(agentKey{}) != "only" {
		t.Errorf("attributed to %+v (%v)", call.Value(agentKey{}), ok)
	}
	end()
	if _, _, ok := r.attribute(context.Background(), methodElicit, &mcp.ElicitParams{Message: "x"}); ok {
		t.Error("attributed with no call in flight")
	}
}

// TestAGuessedRequestEndsWhenItsCallIsCancelledNotWhenItReturns: a request
// attributed only because its call was the one in flight may be the
// server's own (it came on the standalone stream while the call ran): it
// outlives the call's return, and its call's context ending after the
// return (as every call's does) withdraws nothing. Cancelled while it runs,
// the call withdraws it.
func TestAGuessedRequestEndsWhenItsCallIsCancelledNotWhenItReturns(t *testing.T) {
	var r callRegistry
	ctx, cancel := context.WithCancel(context.Background())
	_, end := r.begin(ctx)
	call, lifetime, ok := r.attribute(context.Background(), methodElicit, &mcp.ElicitParams{Message: "x"})
	if !ok || call != ctx {
		t.Fatalf("not attributed to the one call in flight (%v)", ok)
	}
	end()
	cancel()
	if lifetime.Err() != nil {
		t.Error("the request was withdrawn when its call returned")
	}

	ctx, cancel = context.WithCancel(context.Background())
	_, end = r.begin(ctx)
	defer end()
	_, lifetime, _ = r.attribute(context.Background(), methodElicit, &mcp.ElicitParams{Message: "x"})
	cancel()
	select {
	case <-lifetime.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the request outlived its call's cancellation")
	}
}
