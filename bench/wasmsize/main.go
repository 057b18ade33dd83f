// Command wasmsize says what a Go WebAssembly binary holds: the bytes of
// its code by Go package (from the binary's name section), and the size
// of its data and other sections.
//
//	GOOS=js GOARCH=wasm go build -o app.wasm ./wasm   # without -s, which drops the names
//	go run ./bench/wasmsize [-top 40] app.wasm
package main

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
)

func main() {
	top := flag.Int("top", 40, "how many packages to list")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: wasmsize [-top N] file.wasm")
		os.Exit(2)
	}
	b, err := os.ReadFile(flag.Arg(0))
	if err == nil {
		err = report(os.Stdout, b, *top)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmsize:", err)
		os.Exit(1)
	}
}

// module is what report needs of a WebAssembly module.
type module struct {
	sections  map[string]int // bytes by section name
	imported  int            // imported functions, which come first in the index space
	bodies    []int          // the size of each defined function's code
	funcNames map[int]string // by function index
}

func report(w io.Writer, b []byte, top int) error {
	m, err := parse(b)
	if err != nil {
		return err
	}
	if len(m.funcNames) == 0 {
		return errors.New("no function names: build without -ldflags=-s")
	}
	byPkg := map[string]int{}
	code := 0
	for i, size := range m.bodies {
		byPkg[packageOf(m.funcNames[m.imported+i])] += size
		code += size
	}
	fmt.Fprintf(w, "%d bytes: ", len(b))
	names := sortedKeys(m.sections)
	for i, s := range names {
		if i > 0 {
			fmt.Fprint(w, ", ")
		}
		fmt.Fprintf(w, "%s %s", s, kb(m.sections[s]))
	}
	fmt.Fprintf(w, "\n\ncode by package (%d functions, %s):\n", len(m.bodies), kb(code))
	for i, p := range sortedKeys(byPkg) {
		if i == top {
			break
		}
		fmt.Fprintf(w, "%9s %5.1f%%  %s\n", kb(byPkg[p]), 100*float64(byPkg[p])/float64(code), p)
	}
	return nil
}

// packageOf is the Go package of a function's name as the wasm linker
// writes it, with the path's slashes made underscores
// (github.com_maxence_charriere_go_app_v10_pkg_app.(*Engine).load): the
// name up to its first dot, past a leading domain's.
func packageOf(sym string) string {
	if sym == "" {
		return "(unnamed)"
	}
	from := 0
	if d := domain.FindStringIndex(sym); d != nil {
		from = d[1]
	}
	if i := strings.Index(sym[from:], "."); i >= 0 {
		return sym[:from+i]
	}
	return sym
}

// domain matches the domain a module path begins with.
var domain = regexp.MustCompile(`^[a-z0-9-]+\.[a-z]+_`)

// parse reads the sections a report needs.
func parse(b []byte) (*module, error) {
	if len(b) < 8 || !bytes.Equal(b[:4], []byte("\x00asm")) {
		return nil, errors.New("not a WebAssembly module")
	}
	m := &module{sections: map[string]int{}, funcNames: map[int]string{}}
	r := bytes.NewReader(b[8:])
	for r.Len() > 0 {
		id, err := r.ReadByte()
		if err != nil {
			return nil, err
		}
		size, err := binary.ReadUvarint(r)
		if err != nil || size > uint64(r.Len()) {
			return nil, errors.New("a section runs past the end")
		}
		payload := make([]byte, size)
		io.ReadFull(r, payload)
		name := sectionNames[id]
		switch id {
		case 0:
			p := bytes.NewReader(payload)
			n, err := readName(p)
			if err != nil {
				return nil, err
			}
			name = "custom " + n
			if n == "name" {
				if err := m.readNames(p); err != nil {
					return nil, err
				}
			}
		case 2:
			if err := m.readImports(payload); err != nil {
				return nil, err
			}
		case 10:
			if err := m.readCode(payload); err != nil {
				return nil, err
			}
		}
		m.sections[cmp.Or(name, fmt.Sprintf("section %d", id))] += int(size)
	}
	return m, nil
}

var sectionNames = map[byte]string{1: "type", 2: "import", 3: "function", 4: "table", 5: "memory", 6: "global",
	7: "export", 8: "start", 9: "element", 10: "code", 11: "data", 12: "data count"}

// readImports counts the imported functions.
func (m *module) readImports(payload []byte) error {
	r := bytes.NewReader(payload)
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return err
	}
	for range n {
		if _, err := readName(r); err != nil {
			return err
		}
		if _, err := readName(r); err != nil {
			return err
		}
		kind, err := r.ReadByte()
		if err != nil {
			return err
		}
		switch kind {
		case 0: // a function: its type index
			m.imported++
			_, err = binary.ReadUvarint(r)
		case 1: // a table: its type and limits
			if _, err = r.ReadByte(); err == nil {
				err = skipLimits(r)
			}
		case 2: // a memory: its limits
			err = skipLimits(r)
		case 3: // a global: its type and mutability
			_, err = r.Seek(2, io.SeekCurrent)
		default:
			err = fmt.Errorf("import kind %d", kind)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func skipLimits(r *bytes.Reader) error {
	flags, err := r.ReadByte()
	if err != nil {
		return err
	}
	if _, err := binary.ReadUvarint(r); err != nil {
		return err
	}
	if flags&1 != 0 {
		_, err = binary.ReadUvarint(r)
	}
	return err
}

// readCode notes the size of each function body.
func (m *module) readCode(payload []byte) error {
	r := bytes.NewReader(payload)
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return err
	}
	for range n {
		size, err := binary.ReadUvarint(r)
		if err != nil || size > uint64(r.Len()) {
			return errors.New("a function body runs past the code section")
		}
		m.bodies = append(m.bodies, int(size))
		r.Seek(int64(size), io.SeekCurrent)
	}
	return nil
}

// readNames reads the function names of the name section.
func (m *module) readNames(r *bytes.Reader) error {
	for r.Len() > 0 {
		id, err := r.ReadByte()
		if err != nil {
			return err
		}
		size, err := binary.ReadUvarint(r)
		if err != nil || size > uint64(r.Len()) {
			return errors.New("a name subsection runs past its section")
		}
		sub := make([]byte, size)
		io.ReadFull(r, sub)
		if id != 1 {
			continue
		}
		s := bytes.NewReader(sub)
		n, err := binary.ReadUvarint(s)
		if err != nil {
			return err
		}
		for range n {
			idx, err := binary.ReadUvarint(s)
			if err != nil {
				return err
			}
			name, err := readName(s)
			if err != nil {
				return err
			}
			m.funcNames[int(idx)] = name
		}
	}
	return nil
}

// readName reads a length-prefixed UTF-8 name.
func readName(r *bytes.Reader) (string, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil || n > uint64(r.Len()) {
		return "", errors.New("a name runs past its section")
	}
	b := make([]byte, n)
	io.ReadFull(r, b)
	return string(b), nil
}

// sortedKeys are m's keys, largest value first.
func sortedKeys(m map[string]int) []string {
	return slices.SortedFunc(maps.Keys(m), func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), strings.Compare(a, b)) })
}

func kb(n int) string { return fmt.Sprintf("%.0f KB", float64(n)/1024) }
