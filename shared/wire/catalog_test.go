package wire

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestCatalogChangeReplacesTheWholeCatalog(t *testing.T) {
	before := []CatalogEntry{{ID: "a", Name: "A", URL: "https://a.example/mcp", Transport: TransportAuto, Auth: CatalogAuthPerson}}
	s := Snapshot{Catalog: before}
	view := s // a view taken earlier keeps what it had
	after := []CatalogEntry{{ID: "b", Name: "B", URL: "https://b.example/mcp", Transport: TransportSSE, Auth: CatalogAuthMachine}}
	b, _ := json.Marshal(after)
	if err := s.Apply(Change{Kind: KindCatalog, Value: b}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Catalog, after) || !reflect.DeepEqual(view.Catalog, before) {
		t.Fatalf("catalog = %+v, earlier view = %+v", s.Catalog, view.Catalog)
	}
	if err := s.Apply(Change{Kind: KindCatalog, Value: json.RawMessage(`{"not": "a list"}`)}); err == nil || !reflect.DeepEqual(s.Catalog, after) {
		t.Fatalf("a malformed change: %v, catalog = %+v", err, s.Catalog)
	}
	if err := s.Apply(Change{Kind: KindCatalog, Value: json.RawMessage(`[]`)}); err != nil || len(s.Catalog) != 0 {
		t.Fatalf("an empty catalog: %v, %+v", err, s.Catalog)
	}
}
