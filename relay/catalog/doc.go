// Package catalog reads the operator's catalog: a JSON file of MCP servers
// offered to every user of the relay, each with a name, URL, transport,
// description and how it is authorized (by each person, or with the
// operator's machine credentials).
//
// [Load] reads and checks the file as a whole, and fails with a reason that
// names the entry at fault. [Watch] looks at the file on an interval and
// hands every well-formed new version to its caller; a version it cannot
// take is reported and the previous catalog stays.
//
// Machine credentials are named in the file (an environment variable or a
// file), read when the catalog is loaded, and never leave the relay: only
// [Catalog.Public] is shown to dashboards.
package catalog
