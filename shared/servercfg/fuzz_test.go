package servercfg

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
)

// FuzzCheckHeader checks any custom header: an accepted one has a token
// for a name, not one the transport owns, and a value without line breaks
// or control characters; a refusal never quotes the value, a secret.
func FuzzCheckHeader(f *testing.F) {
	for _, s := range [][2]string{
		{"X-Api-Key", "secret§42"}, {"authorization", "Bearer §tok"}, {"host", "evil§"}, {"X-A", "a\r\nX-B: §b"},
		{"X A", "§v"}, {" x-key ", "\t§tab"}, {"X-Key", "del\x7f§"}, {"Mcp-Session-Id", "§"}, {"", ""}, {"X-é", "§"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, name, value string) {
		err := CheckHeader(name, value)
		if err != nil {
			if strings.ContainsRune(value, '§') && !strings.Contains(name, value) && strings.Contains(err.Error(), value) {
				t.Fatalf("CheckHeader(%q, %q) = %q quotes the value", name, value, err)
			}
			return
		}
		canon := CanonicalHeader(name)
		if canon == "" || !isToken(canon) || forbidden[canon] != "" || len(value) > MaxHeaderValue {
			t.Fatalf("CheckHeader accepted %q: %q", name, value)
		}
		for _, r := range value {
			if r < ' ' && r != '\t' || r == 0x7f {
				t.Fatalf("CheckHeader accepted %q with %q", name, value)
			}
		}
		h := http.Header{}
		h.Set(canon, value)
		if len(h) != 1 || h.Get(canon) != value {
			t.Fatalf("header %q: %q set as %v", name, value, h)
		}
	})
}

// FuzzMaskURL masks any server URL as it is shown to a person: no secret
// parameter keeps its value, the others keep theirs, and unmasking the
// untouched masked form gives back the original query.
func FuzzMaskURL(f *testing.F) {
	for _, s := range []string{
		"https://h.example/mcp?api_key=s3cret&x=1", "https://h/?token=a&token=b", "https://h/?Access-Token=%41b&code=",
		"https://h/?a%5Fkey=z&key", "https://h/p?sig=%E2%80%A2%E2%80%A2%E2%80%A2", "https://h/", "https://h/?=&&key=v=w",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		norm, err := urlnorm.Normalize(raw)
		if err != nil {
			return
		}
		masked, did := MaskURL(norm)
		if !did {
			if masked != norm {
				t.Fatalf("MaskURL(%q) = %q, false", norm, masked)
			}
			return
		}
		orig, _ := url.Parse(norm)
		got, err := url.Parse(masked)
		if err != nil {
			t.Fatalf("MaskURL(%q) = %q, which does not parse: %v", norm, masked, err)
		}
		if got.Host != orig.Host || got.Path != orig.Path {
			t.Fatalf("MaskURL(%q) = %q changed more than the query", norm, masked)
		}
		op, mp := strings.Split(orig.RawQuery, "&"), strings.Split(got.RawQuery, "&")
		if len(op) != len(mp) {
			t.Fatalf("MaskURL(%q) = %q changed the parameters", norm, masked)
		}
		names := map[string]bool{}
		unique := true
		for i := range op {
			name, value, _ := strings.Cut(op[i], "=")
			mname, mvalue, _ := strings.Cut(mp[i], "=")
			decoded, err := url.QueryUnescape(name)
			if err != nil {
				decoded = name
			}
			secret := value != "" && IsSecretParam(decoded)
			if mname != name || secret && mvalue != Mask || !secret && mvalue != value {
				t.Fatalf("MaskURL(%q) = %q: %q became %q", norm, masked, op[i], mp[i])
			}
			unique = unique && !names[name]
			names[name] = true
		}
		if back := Unmask(masked, norm); unique && back != norm {
			t.Fatalf("Unmask(MaskURL(%q) = %q) = %q", norm, masked, back)
		}
	})
}

// FuzzNormalizeID normalizes any chosen server id: the result is lower
// case letters, digits, '-' and '_', without '-' at either end, at most
// MaxIDLength bytes, and its own normal form.
func FuzzNormalizeID(f *testing.F) {
	for _, s := range []string{"My Server", "--a--", "ÄÖ", strings.Repeat("ab-", 30), "İstanbul", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		id, err := NormalizeID(raw)
		if err != nil {
			return
		}
		if len(id) > MaxIDLength || strings.HasPrefix(id, "-") || strings.HasSuffix(id, "-") ||
			strings.IndexFunc(id, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') }) >= 0 {
			t.Fatalf("NormalizeID(%q) = %q", raw, id)
		}
		if again, err := NormalizeID(id); err != nil || again != id {
			t.Fatalf("NormalizeID(%q) = %q, then %q, %v", raw, id, again, err)
		}
	})
}
