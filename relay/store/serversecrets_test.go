package store

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

func TestServerSecretsAreSealedAtRest(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	srv := Server{User: "ann", ID: "a", Name: "alpha", URL: "https://a.example/mcp?api_key=sk-live-123&x=1",
		DisplayURL: "https://a.example/mcp?api_key=%E2%80%A2%E2%80%A2%E2%80%A2&x=1", Transport: "auto",
		Headers: map[string]string{"X-Api-Key": "hdr-secret-456"}, Retry: Retry{Attempts: 3, BaseDelayMS: 100, MaxDelayMS: 1000}}
	if err := s.AddServer(ctx, srv); err != nil {
		t.Fatal(err)
	}
	rows, err := s.db.Query(`SELECT * FROM servers`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		rows.Scan(ptrs...)
		for i, v := range vals {
			var b []byte
			switch v := v.(type) {
			case string:
				b = []byte(v)
			case []byte:
				b = v
			}
			if bytes.Contains(b, []byte("sk-live-123")) || bytes.Contains(b, []byte("hdr-secret-456")) {
				t.Errorf("column %s holds a secret in plain text", cols[i])
			}
		}
	}
	rows.Close()
	got, err := s.Servers(ctx, "ann")
	if err != nil || len(got) != 1 {
		t.Fatal(got, err)
	}
	g := got[0]
	if g.URL != srv.URL || g.DisplayURL != srv.DisplayURL || g.Headers["X-Api-Key"] != "hdr-secret-456" || g.Retry != srv.Retry || g.SecretsErr != nil {
		t.Errorf("read back %+v", g)
	}
	if err := s.AddServer(ctx, Server{User: "ann", ID: "a", Name: "other", URL: "https://b.example", Transport: "auto"}); !errors.Is(err, ErrIDTaken) {
		t.Errorf("same id again: %v, want ErrIDTaken", err)
	}
	if err := s.AddServer(ctx, Server{User: "ann", ID: "b", Name: "alpha", URL: "https://b.example", Transport: "auto"}); !errors.Is(err, ErrNameTaken) {
		t.Errorf("same name again: %v, want ErrNameTaken", err)
	}

	// Another key cannot open them: the server still lists, with its
	// header names, and says why.
	other, _ := NewSealer(bytes.Repeat([]byte{7}, sealKeyBytes))
	s.sealer = other
	got, err = s.Servers(ctx, "ann")
	if err != nil || len(got) != 1 {
		t.Fatal(got, err)
	}
	if !errors.Is(got[0].SecretsErr, ErrUnseal) || got[0].URL != srv.DisplayURL || got[0].Headers["X-Api-Key"] != "" || len(got[0].Headers) != 1 {
		t.Errorf("with another key: %+v", got[0])
	}
}

func TestUpdateServerCanForgetItsAuthorization(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	srv := Server{User: "ann", ID: "a", Name: "alpha", URL: "https://a.example/mcp", Transport: "auto"}
	if err := s.AddServer(ctx, srv); err != nil {
		t.Fatal(err)
	}
	o := s.OAuth(s.Sealer())
	if err := o.PutToken(ctx, OAuthToken{User: "ann", Server: "a", AccessToken: "t"}); err != nil {
		t.Fatal(err)
	}
	srv.URL = "https://a.example/v2"
	if err := s.UpdateServer(ctx, srv, false); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := o.Token(ctx, "ann", "a"); !ok {
		t.Fatal("an update on the same origin dropped the token")
	}
	srv.URL, srv.Disconnected = "https://b.example/mcp", true
	if err := s.UpdateServer(ctx, srv, true); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := o.Token(ctx, "ann", "a"); ok {
		t.Error("forgetAuth kept the token")
	}
	if got, _ := s.Servers(ctx, "ann"); len(got) != 1 || got[0].URL != srv.URL || !got[0].Disconnected {
		t.Errorf("after update: %+v", got)
	}
	if err := s.UpdateServer(ctx, Server{User: "ann", ID: "zz", Name: "x"}, false); !errors.Is(err, ErrNotFound) {
		t.Errorf("update of a missing server: %v", err)
	}
}
