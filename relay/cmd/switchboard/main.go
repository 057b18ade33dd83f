// Command switchboard runs the Switchboard relay and its dashboard.
//
//	switchboard serve [flags]     run the relay (prints a one-time login URL)
//	switchboard login [flags]     print a fresh one-time login URL for a running relay
//	switchboard token --sub NAME  print a token signed with the relay's key
//	switchboard servers add|list|import|machine-access   register servers without a browser
//	switchboard agent-key create|list|revoke   manage the keys agents use
//	switchboard conformance-client URL  run one MCP conformance scenario
//	switchboard version           print the build's version
//
// Every flag of serve, login and token has an environment variable
// equivalent: SWITCHBOARD_ and the flag's name in upper case with dashes as
// underscores (--data is SWITCHBOARD_DATA). A flag given on the command line
// wins.
package main

import (
	"fmt"
	"os"

	"github.com/switchboard-mcp/switchboard/relay/buildinfo"
	"github.com/switchboard-mcp/switchboard/relay/cli"
	"github.com/switchboard-mcp/switchboard/relay/store"
)

const usage = `usage: switchboard <command> [flags]

commands:
  serve   run the relay and dashboard
  login   print a fresh one-time login URL
  token   print a token signed with the relay's key
  servers add|list|import|machine-access
          register MCP servers without a browser (a running relay picks them up)
  agent-key create|list|revoke
          manage the keys agents use at /mcp and /api/tools
  conformance-client URL
          run one scenario of the MCP conformance suite (for make conformance)
  version print the build's version

Run "switchboard <command> -h" for the flags of a command.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "serve":
		err = serve(args)
	case "login":
		err = login(args)
	case "token":
		err = token(args)
	case "servers":
		err = cli.Servers(args, os.Stdout)
	case "agent-key":
		err = cli.AgentKey(args, os.Stdout)
	case "conformance-client":
		err = conformanceClient(args)
	case "version", "-version", "--version":
		fmt.Println(buildinfo.Version())
		return
	case "-h", "-help", "--help", "help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "switchboard: unknown command %q\n\n%s", cmd, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "switchboard:", err)
		if store.DiskFull(err) {
			fmt.Fprintln(os.Stderr, "switchboard: the relay's disk is full: free space where its data directory is and run the command again")
		}
		os.Exit(1)
	}
}
