// Package cli holds the commands that change a relay's store without a
// browser: registering servers and managing agent keys.
//
//	switchboard servers add --data DIR --user USER --name NAME --url URL [--transport T]
//	switchboard servers list --data DIR [--user USER]
//	switchboard servers import --data DIR --user USER FILE
//	switchboard servers machine-access --data DIR --user USER --id ID --client-id C (--client-secret-file F | --private-key-file F) | --clear
//	switchboard agent-key create --data DIR --user USER --name NAME [--servers ID,...] [--tools T,...] [--ttl D]
//	switchboard agent-key list --data DIR --user USER
//	switchboard agent-key revoke --data DIR --user USER --id ID
//
// They write the store directly: the SQLite file in the data directory,
// or, with --store URL, the relay's PostgreSQL database (the data
// directory then holds the seal key). A relay running on the same store
// notices within a second and applies the change: new servers connect,
// removed ones close, a server waiting for a person connects with the
// machine access given to it, a revoked key's agents are disconnected.
package cli
