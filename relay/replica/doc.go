// Package replica lets several relays on one PostgreSQL store serve users
// together, each user's live state (connections, asks, running calls,
// dashboards' streams) on exactly one of them, its owner.
//
// A replica takes a user when a request for them arrives and nobody owns
// them: it takes the user's lock in PostgreSQL ([store.Ownership]), which
// ends the moment PostgreSQL sees the replica's connection drop, and starts
// the user's session from the store. A request that arrives for a user
// another replica owns is forwarded to the owner over the replicas'
// internal addresses: an HTTP request as it came ([Router.Forward]), a
// dashboard's socket after it authenticated ([Router.Pipe]). A forwarded
// request carries a proof that a replica sent it, signed with the key every
// replica shares; the internal listener ([Router.Internal]) serves nothing
// else. When an owner dies its users' locks end, and the next request for
// each makes the replica it reaches the owner. A user nobody has used for
// Config.IdleAfter is let go.
package replica
