package authn

import (
	"net/http"
	"strings"
	"time"
)

// CookieName is the session cookie set by Login and read by FromRequest.
const CookieName = "switchboard_session"

// bearerScheme is the Authorization scheme FromRequest accepts.
const bearerScheme = "Bearer"

// FromRequest verifies the token of r: the session cookie if there is one,
// else an Authorization: Bearer header. A token in the URL is never read.
// present is false when r carries neither; a present but invalid credential
// gives present true and an error.
func (v *Verifier) FromRequest(r *http.Request) (claims Claims, present bool, err error) {
	if c, err := r.Cookie(CookieName); err == nil && c.Value != "" {
		claims, err := v.Verify(c.Value)
		return claims, true, err
	}
	h := r.Header.Get("Authorization")
	if h == "" {
		return Claims{}, false, nil
	}
	scheme, token, ok := strings.Cut(h, " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, bearerScheme) || token == "" {
		return Claims{}, true, ErrBadAuthorization
	}
	claims, err = v.Verify(token)
	return claims, true, err
}

// SessionCookie returns the cookie that carries a session token: HttpOnly,
// SameSite=Strict, for the whole site, Secure when the relay serves TLS.
func SessionCookie(token string, expires time.Time, secure bool) *http.Cookie {
	return &http.Cookie{
		Name:     CookieName,
		Value:    token,
		Path:     "/",
		Expires:  expires,
		Secure:   secure,
		HttpOnly: true,
		SameSite: http.SameSiteStrictMode,
	}
}
