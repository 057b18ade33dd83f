package session

import (
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// NewRegistration checks a server's name, URL and transport as [Session.Add]
// does and returns the registration to store under a fresh id, for tools
// that register servers without a running relay (the command line). A
// running relay picks it up with [Manager.Sync].
func NewRegistration(user string, args wire.AddServerArgs) (store.Server, error) {
	name := strings.TrimSpace(args.Name)
	if err := checkName(name); err != nil {
		return store.Server{}, err
	}
	u, err := urlnorm.Normalize(args.URL)
	if err != nil {
		return store.Server{}, wire.NewError(wire.CodeInvalidURL, err.Error())
	}
	transport, err := checkTransport(args.Transport)
	if err != nil {
		return store.Server{}, err
	}
	return store.Server{User: user, ID: randomHex(6), Name: name, URL: u, Transport: transport, CreatedAt: time.Now()}, nil
}
