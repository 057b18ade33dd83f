package wire_test

import (
	"fmt"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// A dashboard sends an op and decodes the relay's frames.
func Example() {
	op, _ := wire.Op("1", wire.OpAddServer, wire.AddServerArgs{Name: "docs", URL: "https://example.com/mcp"})
	b, _ := wire.Encode(op)
	fmt.Println(string(b))

	f, err := wire.Decode([]byte(`{"v":1,"type":"error","id":"1","error":{"code":"invalid_url","message":"invalid URL: missing host"}}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Type, f.ID, f.Error.Code)
	// Output:
	// {"v":1,"type":"op","id":"1","op":"server.add","data":{"name":"docs","url":"https://example.com/mcp"}}
	// error 1 invalid_url
}
