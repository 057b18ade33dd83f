package urlsafe

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckOpenable(t *testing.T) {
	for _, tc := range []struct {
		raw      string
		wantHost string // empty: refused
	}{
		{"https://auth.example.com/authorize?client_id=x&state=y", "auth.example.com"},
		{"HTTPS://Auth.Example.COM:8443/a", "auth.example.com"},
		{"http://127.0.0.1:9000/authorize", "127.0.0.1"},
		{"http://localhost/authorize", "localhost"},
		{"http://app.localhost:8080/x", "app.localhost"},
		{"http://[::1]:8080/x", "::1"},
		{"https://[2001:db8::1]/x", "2001:db8::1"},
		{"http://example.com/authorize", ""},
		{"http://10.0.0.1/authorize", ""},
		{"javascript:alert(1)", ""},
		{"JavaScript:alert(1)", ""},
		{"data:text/html,<script>alert(1)</script>", ""},
		{"file:///etc/passwd", ""},
		{"vbscript:msgbox", ""},
		{"blob:https://example.com/uuid", ""},
		{"ftp://example.com/x", ""},
		{"about:blank", ""},
		{"//example.com/x", ""},
		{"/relative/path", ""},
		{"", ""},
		{"https://", ""},
		{"https:example.com", ""},
		{"https://user:pass@example.com/", ""},
		{"https://good.example@evil.example/", ""},
		{"https://example.com/a b", ""},
		{"https://example.com/\x00", ""},
		{"https://example.com/\u202e", ""},
		{"https://evil.example\\@good.example/", ""},
		{"https://example.com/" + strings.Repeat("a", MaxLength), ""},
	} {
		host, err := CheckOpenable(tc.raw)
		if tc.wantHost == "" {
			if err == nil {
				t.Errorf("CheckOpenable(%q) = %q, want refusal", tc.raw, host)
			} else if !errors.Is(err, ErrNotOpenable) {
				t.Errorf("CheckOpenable(%q) error %v does not wrap ErrNotOpenable", tc.raw, err)
			}
			continue
		}
		if err != nil || host != tc.wantHost {
			t.Errorf("CheckOpenable(%q) = %q, %v; want %q", tc.raw, host, err, tc.wantHost)
		}
	}
}

func TestHostWarnings(t *testing.T) {
	for _, tc := range []struct {
		host string
		want []string // substrings, one per expected warning, in order
	}{
		{"", nil},
		{"example.com", nil},
		{"auth.example.co.uk", nil},
		{"127.0.0.1", nil},
		{"xn--mnchen-3ya.de", []string{`reads as "münchen.de"`}},
		{"münchen.de", []string{`reads as "münchen.de"`}},
		{"xn--pple-43d.com", []string{`reads as "аpple.com"`, "mixes Cyrillic and Latin letters"}},
		{"xn--80ak6aa92e.com", []string{`reads as "аррӏе.com"`, "written in Cyrillic letters"}},
		{"xn--fiq228c5hs.cn", []string{`reads as "中文网.cn"`}},
		{"xn--zz.com", []string{"malformed punycode"}},
		{"XN--PPLE-43D.COM.", []string{`reads as "аpple.com"`, "mixes"}},
	} {
		got := HostWarnings(tc.host)
		if len(got) != len(tc.want) {
			t.Errorf("HostWarnings(%q) = %q, want %d warnings", tc.host, got, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("HostWarnings(%q)[%d] = %q, want it to contain %q", tc.host, i, got[i], w)
			}
		}
	}
}

func TestDecodePunycode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"mnchen-3ya", "münchen"},
		{"bcher-kva", "bücher"},
		{"80ak6aa92e", "аррӏе"},
		{"wgbh1c", "مصر"},
		{"abc-", "abc"},
	} {
		got, err := decodePunycode(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("decodePunycode(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"zz", "!!", "ü-abc", strings.Repeat("9", 40)} {
		if got, err := decodePunycode(bad); err == nil {
			t.Errorf("decodePunycode(%q) = %q, want an error", bad, got)
		}
	}
}

func TestEncodePunycode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"münchen", "mnchen-3ya"},
		{"bücher", "bcher-kva"},
		{"аррӏе", "80ak6aa92e"},
		{"аpple", "pple-43d"},
		{"中文网", "fiq228c5hs"},
		// RFC 3492 section 7.1, samples A and B.
		{"ليهمابتكلموشعربي؟", "egbpdaj6bu4bxfgehfvwxn"},
		{"他们为什么不说中文", "ihqwcrb4cv8a8dqg056pqjye"},
	} {
		got, err := encodePunycode(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("encodePunycode(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		if back, err := decodePunycode(got); err != nil || back != tc.in {
			t.Errorf("decodePunycode(encodePunycode(%q)) = %q, %v", tc.in, back, err)
		}
	}
	if got, err := encodePunycode(strings.Repeat("ü", 64)); err == nil {
		t.Errorf("a 64-rune label encoded as %q, want an error", got)
	}
}

func TestHostForms(t *testing.T) {
	for _, tc := range []struct{ host, ascii, readable string }{
		{"example.com", "example.com", "example.com"},
		{"127.0.0.1", "127.0.0.1", "127.0.0.1"},
		{"аpple.com", "xn--pple-43d.com", "аpple.com"},
		{"XN--PPLE-43D.com", "xn--pple-43d.com", "аpple.com"},
		{"MÜNCHEN.de", "xn--mnchen-3ya.de", "münchen.de"},
		{"xn--zz.com", "xn--zz.com", "xn--zz.com"},
	} {
		ascii, readable := HostForms(tc.host)
		if ascii != tc.ascii || readable != tc.readable {
			t.Errorf("HostForms(%q) = %q, %q; want %q, %q", tc.host, ascii, readable, tc.ascii, tc.readable)
		}
	}
}
