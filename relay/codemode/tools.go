package codemode

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ToolDef is one of the two tools code mode offers a model, as any host
// (an MCP endpoint, a chat's model API) declares it.
type ToolDef struct {
	Name, Description string
	InputSchema       json.RawMessage
}

// MaxProgramBytes caps the program a model sends to execute.
const MaxProgramBytes = 64 << 10

// The two tools of code mode.
var (
	SearchTool = ToolDef{
		Name: "search",
		Description: "Find the tools you can call from an execute program. Returns their TypeScript declarations " +
			"(arguments and results, with descriptions), grouped by the global object of their server. " +
			"Query with a few words (all must match a server, a tool name or a description); " +
			"an empty query lists the servers and their tool names.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"Words to match; empty lists everything briefly."}}}`),
	}
	ExecuteTool = ToolDef{
		Name: "execute",
		Description: "Run a JavaScript program (ES2020, async/await) that calls the tools found with search: " +
			"each server is a global object whose methods are its tools, e.g. `const r = await files.list_directory({path: \"/\"})`. " +
			"A tool returns its structured result, or its text; a failed tool throws an Error you can catch. " +
			"`return` gives the program's result (as JSON); console.log lines are returned too. " +
			"No network, files or timers; limits on time, tool calls and output apply.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"code":{"type":"string","description":"The program: the body of an async function."}},"required":["code"]}`),
	}
)

// QueryOf reads search's arguments: the query, empty when none.
func QueryOf(args json.RawMessage) (string, error) {
	var a struct {
		Query string `json:"query"`
	}
	if len(args) > 0 && json.Unmarshal(args, &a) != nil {
		return "", errors.New(`search takes {"query": string}`)
	}
	return a.Query, nil
}

// ProgramOf reads execute's arguments: the program, or why there is none
// to run.
func ProgramOf(args json.RawMessage) (string, error) {
	var a struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(args, &a) != nil || a.Code == "" {
		return "", errors.New(`execute takes {"code": string}, a JavaScript program`)
	}
	if len(a.Code) > MaxProgramBytes {
		return "", fmt.Errorf("the program is over %d KiB", MaxProgramBytes>>10)
	}
	return a.Code, nil
}
