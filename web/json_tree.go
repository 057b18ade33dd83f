package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Limits of the JSON tree: a bigger document shows as indented text.
const (
	maxTreeNodes = 2000
	maxTreeDepth = 32
	// openDepth is how deep the tree starts open.
	openDepth = 2
)

var errTooBig = errors.New("too big for a tree")

// jsonNode is one value of a JSON document, in the document's order.
type jsonNode struct {
	Key      string // the member name or the index in its parent; "" at the root
	Scalar   string // a string, number, true, false or null as JSON writes it
	Open     byte   // '{' or '[' for an object or array, 0 for a scalar
	Children []jsonNode
}

// parseJSONTree reads text as one JSON value into a tree; ok is false when
// it is not JSON or is too big or deep for one.
func parseJSONTree(text string) (jsonNode, bool) {
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	count := 0
	root, err := readNode(dec, "", 0, &count)
	if err != nil {
		return jsonNode{}, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return jsonNode{}, false // trailing data
	}
	return root, true
}

func readNode(dec *json.Decoder, key string, depth int, count *int) (jsonNode, error) {
	*count++
	if *count > maxTreeNodes || depth > maxTreeDepth {
		return jsonNode{}, errTooBig
	}
	tok, err := dec.Token()
	if err != nil {
		return jsonNode{}, err
	}
	n := jsonNode{Key: key}
	switch t := tok.(type) {
	case json.Delim:
		n.Open = byte(t)
		for i := 0; dec.More(); i++ {
			childKey := strconv.Itoa(i)
			if n.Open == '{' {
				k, err := dec.Token()
				if err != nil {
					return jsonNode{}, err
				}
				childKey, _ = k.(string)
			}
			child, err := readNode(dec, childKey, depth+1, count)
			if err != nil {
				return jsonNode{}, err
			}
			n.Children = append(n.Children, child)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return jsonNode{}, err
		}
	case string:
		n.Scalar = strconv.Quote(t)
	case json.Number:
		n.Scalar = t.String()
	case bool:
		n.Scalar = strconv.FormatBool(t)
	case nil:
		n.Scalar = "null"
	}
	return n, nil
}

// renderJSONTree shows a parsed document: objects and arrays as sections
// that open and close, the first levels open.
func renderJSONTree(root jsonNode) app.UI {
	return app.Div().Class("json-tree", "code-block").Body(renderJSONNode(root, 0))
}

func renderJSONNode(n jsonNode, depth int) app.UI {
	if n.Open == 0 {
		return app.Div().Class("json-leaf").Body(jsonKey(n.Key), app.Span().Class("json-value").Text(n.Scalar))
	}
	summary := strconv.Itoa(len(n.Children)) + " items]"
	open, closing := "[", "]"
	if n.Open == '{' {
		summary = strconv.Itoa(len(n.Children)) + " keys}"
		open, closing = "{", "}"
	}
	if len(n.Children) == 0 {
		return app.Div().Class("json-leaf").Body(jsonKey(n.Key), app.Span().Class("json-value").Text(open+closing))
	}
	children := n.Children
	return app.Details().Class("json-node").Open(depth < openDepth).Body(
		app.Summary().Body(jsonKey(n.Key), app.Span().Class("json-count").Text(open+summary)),
		app.Div().Class("json-children").Body(
			app.Range(children).Slice(func(i int) app.UI { return renderJSONNode(children[i], depth+1) }),
		),
	)
}

// jsonKey shows a member name or index before its value; nothing at the root.
func jsonKey(key string) app.UI {
	if key == "" {
		return app.Text("")
	}
	return app.Span().Class("json-key").Text(key + ": ")
}
