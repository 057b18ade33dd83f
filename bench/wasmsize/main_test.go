package main

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// section is a wasm section of id with payload.
func section(id byte, payload []byte) []byte {
	return append(binary.AppendUvarint([]byte{id}, uint64(len(payload))), payload...)
}

// name is a length-prefixed name.
func name(s string) []byte { return append(binary.AppendUvarint(nil, uint64(len(s))), s...) }

func TestCodeIsSummedByPackageAfterTheImportedFunctions(t *testing.T) {
	imports := append(binary.AppendUvarint(nil, 1), name("go")...) // one function import
	imports = append(append(imports, name("debug")...), 0, 0)
	code := binary.AppendUvarint(nil, 3)
	for _, size := range []int{10, 20, 40} {
		code = append(binary.AppendUvarint(code, uint64(size)), make([]byte, size)...)
	}
	names := binary.AppendUvarint(nil, 4)
	for i, n := range []string{"go.debug", "github.com_switchboard_mcp_switchboard_web.(*App).Render", "runtime.gc", "github.com_switchboard_mcp_switchboard_web.init"} {
		names = append(binary.AppendUvarint(names, uint64(i)), name(n)...)
	}
	custom := append(name("name"), section(1, names)...)
	var wasm bytes.Buffer
	wasm.WriteString("\x00asm\x01\x00\x00\x00")
	wasm.Write(section(2, imports))
	wasm.Write(section(10, code))
	wasm.Write(section(0, custom))

	var out strings.Builder
	if err := report(&out, wasm.Bytes(), 10); err != nil {
		t.Fatal(err)
	}
	m, err := parse(wasm.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if m.imported != 1 || len(m.bodies) != 3 {
		t.Fatalf("imported %d, bodies %v; want 1 and 3", m.imported, m.bodies)
	}
	// 10+40 bytes of the web package, 20 of the runtime, in that order.
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-2:]
	if !strings.HasSuffix(last[0], "github.com_switchboard_mcp_switchboard_web") || !strings.HasSuffix(last[1], "runtime") ||
		!strings.Contains(last[0], "71.4%") || !strings.Contains(last[1], "28.6%") {
		t.Errorf("report:\n%s", out.String())
	}
}

func TestPackageOfSkipsADomainsDot(t *testing.T) {
	for sym, want := range map[string]string{
		"github.com_maxence_charriere_go_app_v10_pkg_app.__Engine_.load": "github.com_maxence_charriere_go_app_v10_pkg_app",
		"crypto_internal_fips140_nistec.P256Point.Add":                   "crypto_internal_fips140_nistec",
		"runtime.mallocgc": "runtime",
		"":                 "(unnamed)",
	} {
		if got := packageOf(sym); got != want {
			t.Errorf("packageOf(%q) = %q, want %q", sym, got, want)
		}
	}
}

func TestANameSectionIsNeeded(t *testing.T) {
	if err := report(&strings.Builder{}, []byte("\x00asm\x01\x00\x00\x00"), 10); err == nil || !strings.Contains(err.Error(), "-s") {
		t.Errorf("a module without names: err = %v", err)
	}
	if _, err := parse([]byte("not wasm")); err == nil {
		t.Error("a file that is not wasm was read")
	}
}
