package wire_test

import (
	"fmt"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// A relay sends the diff of a server's two states; a dashboard applies it
// to its mirror and holds the second state, while a view of the first is
// left as it was.
func ExampleDiff() {
	before := []wire.Server{{ID: "s1", State: wire.StateReady, Tools: []wire.Tool{{Name: "add"}, {Name: "sub"}}}}
	after := []wire.Server{{ID: "s1", State: wire.StateReady, Tools: []wire.Tool{{Name: "add"}, {Name: "mul"}, {Name: "sub", Title: "Subtract"}}}}

	mirror := wire.Snapshot{Servers: before}
	view := mirror // what the page shows now
	changes := wire.Diff(before, after)
	if err := mirror.ApplyAll(changes); err != nil {
		panic(err)
	}
	for _, c := range changes {
		fmt.Println(c.Kind, c.Key)
	}
	fmt.Println(len(mirror.Servers[0].Tools), mirror.Servers[0].Tools[1].Name, len(view.Servers[0].Tools))
	// Output:
	// tool mul
	// tool sub
	// 3 mul 2
}
