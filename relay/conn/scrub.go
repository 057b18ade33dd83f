package conn

import (
	"context"
	"log/slog"
	"net/url"
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/servercfg"
)

// secretsOf returns the secrets of cfg that an error text could quote: its
// header values and the values of its URL's secret query parameters, as
// written and decoded.
func secretsOf(cfg Config) []string {
	var out []string
	for _, v := range cfg.Headers {
		out = append(out, v)
	}
	if u, err := url.Parse(cfg.URL); err == nil {
		for _, p := range strings.Split(u.RawQuery, "&") {
			name, value, _ := strings.Cut(p, "=")
			if decoded, err := url.QueryUnescape(name); err == nil && value != "" && servercfg.IsSecretParam(decoded) {
				out = append(out, value)
				if plain, err := url.QueryUnescape(value); err == nil && plain != value {
					out = append(out, plain)
				}
			}
		}
	}
	return out
}

// scrub masks c's secrets in s, a text bound for a log line or a person:
// the go-sdk's errors quote request URLs whole.
func (c *Conn) scrub(s string) string {
	for _, secret := range c.secrets {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, servercfg.Mask)
		}
	}
	return s
}

// scrubbing is a slog.Handler that masks a connection's secrets in every
// message and attribute before passing a record on, so that no log line of
// the connection (the go-sdk's included) carries them.
type scrubbing struct {
	inner slog.Handler
	scrub func(string) string
}

// Enabled implements [slog.Handler].
func (h scrubbing) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

// Handle implements [slog.Handler].
func (h scrubbing) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.scrub(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

// WithAttrs implements [slog.Handler].
func (h scrubbing) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = h.attr(a)
	}
	return scrubbing{inner: h.inner.WithAttrs(clean), scrub: h.scrub}
}

// WithGroup implements [slog.Handler].
func (h scrubbing) WithGroup(name string) slog.Handler {
	return scrubbing{inner: h.inner.WithGroup(name), scrub: h.scrub}
}

// attr masks the secrets in a's value, as text.
func (h scrubbing) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.scrub(v.String()))
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, h.scrub(err.Error()))
		}
		return slog.String(a.Key, h.scrub(v.String()))
	case slog.KindGroup:
		group := v.Group()
		clean := make([]any, len(group))
		for i, g := range group {
			clean[i] = h.attr(g)
		}
		return slog.Group(a.Key, clean...)
	}
	return a
}
