package store

import (
	"context"
	"fmt"

	"github.com/switchboard-mcp/switchboard/shared/servercfg"
)

// sealPlainURLs seals the secret query values of server URLs stored before
// they were sealed: the migration that gave servers their sealed secrets
// is SQL, which has no key, so it left such URLs as they were. Each runs
// once: a sealed row has secrets.
func (s *Store) sealPlainURLs(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT user_id, server_id, url FROM servers WHERE secrets IS NULL`)
	if err != nil {
		return fmt.Errorf("seal plain urls: %w", err)
	}
	var plain []Server
	for rows.Next() {
		var srv Server
		if err := rows.Scan(&srv.User, &srv.ID, &srv.URL); err != nil {
			rows.Close()
			return fmt.Errorf("seal plain urls: %w", err)
		}
		if shown, masked := servercfg.MaskURL(srv.URL); masked {
			srv.DisplayURL = shown
			plain = append(plain, srv)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("seal plain urls: %w", err)
	}
	for _, srv := range plain {
		shown, secrets, err := s.sealed(srv)
		if err != nil {
			return fmt.Errorf("seal the url of server %s: %w", srv.ID, err)
		}
		if _, err := s.exec(ctx, `UPDATE servers SET url = ?, secrets = ? WHERE user_id = ? AND server_id = ? AND secrets IS NULL`,
			shown, secrets, srv.User, srv.ID); err != nil {
			return fmt.Errorf("seal the url of server %s: %w", srv.ID, err)
		}
	}
	return nil
}
