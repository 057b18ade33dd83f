// Package chatfixture is an MCP server whose tools a chat's model calls in
// the browser tests of the chat: the go-sdk over streamable HTTP on
// 127.0.0.1 (a [fixture.Loopback]).
//
//	fx := chatfixture.Start(t) // stopped by t.Cleanup
//	register(fx.URL())         // http://127.0.0.1:PORT/mcp
//
// Its tools:
//   - account_lookup, hinted read-only: asks the person a form question
//     ([AskMessage], one text field [AskField] titled [AskTitle]), records
//     the answer ([Server.Answers]) and returns [AccountRecord], which does
//     not echo it, so that a test can tell whether anything of the form
//     reached the model;
//   - city_weather, hinted read-only: the weather of its city argument
//     ([Weather]), for parallel calls;
//   - purge_reports, marked destructive: it counts its runs
//     ([Server.Purges]), for approvals.
package chatfixture
