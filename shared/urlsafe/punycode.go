package urlsafe

import (
	"errors"
	"math"
	"strings"
)

// Punycode parameters (RFC 3492 section 5).
const (
	pcBase        = 36
	pcTMin        = 1
	pcTMax        = 26
	pcSkew        = 38
	pcDamp        = 700
	pcInitialBias = 72
	pcInitialN    = 128
	pcDelimiter   = '-'
	// pcMaxRunes bounds a decoded label; DNS labels are at most 63 bytes.
	pcMaxRunes = 63
)

var errPunycode = errors.New("malformed punycode")

// decodePunycode decodes the part of a label after "xn--" (RFC 3492 section
// 6.2), so that warnings can show what a name reads as.
func decodePunycode(s string) (string, error) {
	var output []rune
	if pos := strings.LastIndexByte(s, pcDelimiter); pos >= 0 {
		for i := 0; i < pos; i++ {
			if s[i] >= utf8RuneSelf {
				return "", errPunycode
			}
		}
		output = []rune(s[:pos])
		s = s[pos+1:]
	}
	n, i, bias := pcInitialN, 0, pcInitialBias
	for len(s) > 0 {
		oldi, w := i, 1
		for k := pcBase; ; k += pcBase {
			if len(s) == 0 {
				return "", errPunycode
			}
			digit, ok := punycodeDigit(s[0])
			s = s[1:]
			if !ok || digit > (math.MaxInt32-i)/w {
				return "", errPunycode
			}
			i += digit * w
			t := min(max(k-bias, pcTMin), pcTMax)
			if digit < t {
				break
			}
			if w > math.MaxInt32/(pcBase-t) {
				return "", errPunycode
			}
			w *= pcBase - t
		}
		points := len(output) + 1
		bias = adaptBias(i-oldi, points, oldi == 0)
		if i/points > math.MaxInt32-n {
			return "", errPunycode
		}
		n += i / points
		i %= points
		if n > maxRune || len(output) >= pcMaxRunes {
			return "", errPunycode
		}
		output = append(output[:i], append([]rune{rune(n)}, output[i:]...)...)
		i++
	}
	return string(output), nil
}

// maxRune is the largest Unicode code point.
const maxRune = 0x10FFFF

// punycodeDigit returns the value of one basic code point.
func punycodeDigit(c byte) (int, bool) {
	switch {
	case c >= 'a' && c <= 'z':
		return int(c - 'a'), true
	case c >= 'A' && c <= 'Z':
		return int(c - 'A'), true
	case c >= '0' && c <= '9':
		return int(c-'0') + 26, true
	}
	return 0, false
}

// adaptBias is the bias adaptation of RFC 3492 section 6.1.
func adaptBias(delta, points int, first bool) int {
	if first {
		delta /= pcDamp
	} else {
		delta /= 2
	}
	delta += delta / points
	k := 0
	for delta > ((pcBase-pcTMin)*pcTMax)/2 {
		delta /= pcBase - pcTMin
		k += pcBase
	}
	return k + (pcBase-pcTMin+1)*delta/(delta+pcSkew)
}

// encodePunycode encodes a label that is not all ASCII into the part that
// follows "xn--" (RFC 3492 section 6.3).
func encodePunycode(label string) (string, error) {
	input := []rune(label)
	if len(input) > pcMaxRunes {
		return "", errPunycode
	}
	var out strings.Builder
	for _, r := range input {
		if r < utf8RuneSelf {
			out.WriteRune(r)
		}
	}
	basic := out.Len()
	if basic > 0 {
		out.WriteByte(pcDelimiter)
	}
	n, delta, bias := pcInitialN, 0, pcInitialBias
	for h := basic; h < len(input); {
		m := maxRune + 1
		for _, r := range input {
			if int(r) >= n && int(r) < m {
				m = int(r)
			}
		}
		// Labels are at most 63 runes, so delta stays far below overflow.
		delta += (m - n) * (h + 1)
		n = m
		for _, r := range input {
			if int(r) < n {
				delta++
			}
			if int(r) != n {
				continue
			}
			q := delta
			for k := pcBase; ; k += pcBase {
				t := min(max(k-bias, pcTMin), pcTMax)
				if q < t {
					break
				}
				out.WriteByte(punycodeLetter(t + (q-t)%(pcBase-t)))
				q = (q - t) / (pcBase - t)
			}
			out.WriteByte(punycodeLetter(q))
			bias = adaptBias(delta, h+1, h == basic)
			delta = 0
			h++
		}
		delta++
		n++
	}
	return out.String(), nil
}

// punycodeLetter is the basic code point of a digit value (0 to 35).
func punycodeLetter(d int) byte {
	if d < 26 {
		return byte('a' + d)
	}
	return byte('0' + d - 26)
}
