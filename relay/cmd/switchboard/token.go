package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/authn"
	"github.com/switchboard-mcp/switchboard/relay/service"
	"github.com/switchboard-mcp/switchboard/relay/store"
)

func token(args []string) error {
	fs := newFlagSet("token")
	df := addDataFlags(fs)
	storeURL := addStoreFlag(fs)
	sub := fs.String("sub", "", "user id the token is for (required)")
	ttl := fs.Duration("ttl", time.Hour, "lifetime of the token")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *sub == "" {
		return errors.New("token: --sub is required")
	}
	ctx := context.Background()
	st, signer, err := openSigner(ctx, df, *storeURL)
	if err != nil {
		return err
	}
	defer st.Close()
	tok, err := signer.Mint(*sub, *ttl)
	if err != nil {
		return err
	}
	fmt.Println(tok)
	return nil
}

func login(args []string) error {
	fs := newFlagSet("login")
	df := addDataFlags(fs)
	storeURL := addStoreFlag(fs)
	addr := fs.String("addr", "127.0.0.1:8080", "address the relay listens on")
	publicURL := fs.String("public-url", "", "URL at which people reach the relay (default http://ADDR)")
	user := fs.String("user", service.DefaultLocalUser, "user id to sign in as")
	sessionTTL := fs.Duration("session-ttl", service.DefaultSessionTTL, "lifetime of the browser session")
	if err := fs.parse(args); err != nil {
		return err
	}
	ctx := context.Background()
	st, signer, err := openSigner(ctx, df, *storeURL)
	if err != nil {
		return err
	}
	defer st.Close()
	base := strings.TrimRight(*publicURL, "/")
	if base == "" {
		base = "http://" + *addr
	}
	u, err := service.NewLoginURL(ctx, authn.NewLogin(st, signer, *sessionTTL, slog.Default()), *user, base)
	if err != nil {
		return err
	}
	fmt.Println(u)
	return nil
}

// openSigner opens the store at storeURL (or in the data directory) and
// loads the relay's signer; the caller closes the store.
func openSigner(ctx context.Context, df dataFlags, storeURL string) (*store.Store, *authn.Signer, error) {
	if err := checkStore(storeURL); err != nil {
		return nil, nil, err
	}
	st, err := store.OpenTarget(ctx, storeURL, *df.data)
	if err != nil {
		return nil, nil, err
	}
	signer, err := loadSigner(ctx, df, st)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, signer, nil
}

// loadSigner loads the relay's key: from a shared store (PostgreSQL), which
// keeps it for every replica, else from an existing data directory.
func loadSigner(ctx context.Context, df dataFlags, st *store.Store) (*authn.Signer, error) {
	if st.Shared() {
		key, err := st.RelayKey(ctx)
		if err != nil {
			return nil, err
		}
		return authn.NewSigner(key, *df.issuer, *df.audience), nil
	}
	path := filepath.Join(*df.data, service.KeyFile)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("no relay key at %s: run \"switchboard serve\" once with this --data directory", path)
	}
	key, err := authn.LoadOrCreateKey(path)
	if err != nil {
		return nil, err
	}
	return authn.NewSigner(key, *df.issuer, *df.audience), nil
}
