package conn

import (
	"net/http"
	"testing"
)

// withBearer changes a copy of the request, and copies only when there is
// something to change.
func TestWithBearerCopiesOnlyToChange(t *testing.T) {
	plain, err := http.NewRequest(http.MethodGet, "http://server.test/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := withBearer(plain, "", false); r != plain {
		t.Error("a request without a token was copied")
	}
	r, _ := withBearer(plain, "tok", false)
	if r == plain || r.Header.Get(headerAuthorization) != "Bearer tok" || plain.Header.Get(headerAuthorization) != "" {
		t.Errorf("with a token: %v (the original: %v)", r.Header, plain.Header)
	}
	r, _ = withBearer(r, "", false)
	if _, ok := r.Header[headerAuthorization]; ok {
		t.Errorf("the Authorization header stayed: %v", r.Header)
	}
}
