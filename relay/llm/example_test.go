package llm_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/switchboard-mcp/switchboard/relay/llm"
	"github.com/switchboard-mcp/switchboard/relay/netguard"
)

// A local OpenAI-compatible server (as Ollama's) streams an answer; the
// relay prints it as it comes.
func Example() {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"model":"llama3.2","choices":[{"index":0,"delta":{"content":"Hello"}}]}`+"\n\n")
		io.WriteString(w, `data: {"model":"llama3.2","choices":[{"index":0,"delta":{"content":", world."},"finish_reason":"stop"}]}`+"\n\n")
		io.WriteString(w, `data: {"model":"llama3.2","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4}}`+"\n\n")
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer server.Close()

	client, err := llm.New(llm.Config{
		Kind:       llm.OpenAI,
		URL:        server.URL + "/v1",
		Model:      "llama3.2",
		HTTPClient: netguard.Policy{AllowLoopback: true}.Client(0),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	req := &llm.Request{Messages: []llm.Message{{Role: llm.User, Parts: []llm.Part{llm.TextPart("Say hello.")}}}}
	for ev, err := range client.Stream(context.Background(), req) {
		switch {
		case err != nil:
			fmt.Println("error:", err)
		case ev.Type == llm.EventText:
			fmt.Print(ev.Text)
		case ev.Type == llm.EventUsage:
			fmt.Printf("\n%d tokens in, %d out\n", ev.Usage.InputTokens, ev.Usage.OutputTokens)
		case ev.Type == llm.EventEnd:
			fmt.Println("stopped:", ev.StopReason)
		}
	}
	// Output:
	// Hello, world.
	// 9 tokens in, 4 out
	// stopped: end_turn
}
