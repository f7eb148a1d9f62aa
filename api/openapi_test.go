package api

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

func TestOpenAPILoads(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s %d paths", doc.OpenAPI, doc.Paths.Len())
}

// TestOpenAPIGeneratorFriendly holds the document to what code generators
// take and what a launcher developer needs: every field is described (a
// $ref field by its schema), no field is "null or an object" (oapi-codegen
// v2.4 fails on a oneOf with a null branch: an absent field says it), and
// every number says its format (else oapi-codegen makes it a float32).
func TestOpenAPIGeneratorFriendly(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[*openapi3.Schema]bool{}
	var faults []string
	var walk func(where string, s *openapi3.Schema)
	walk = func(where string, s *openapi3.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if s.Type.Is("number") && s.Format == "" {
			faults = append(faults, where+": a number without a format (double)")
		}
		for _, alts := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf} {
			for _, a := range alts {
				if a.Value != nil && a.Value.Type.Is("null") {
					faults = append(faults, where+`: a oneOf or anyOf with a "null" branch; leave the field out instead`)
				}
			}
		}
		names := make([]string, 0, len(s.Properties))
		for n := range s.Properties {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			p := s.Properties[n]
			if p.Value == nil || p.Value.Description == "" {
				faults = append(faults, where+"."+n+": no description")
			}
			walk(where+"."+n, p.Value)
		}
		if s.Items != nil {
			walk(where+"[]", s.Items.Value)
		}
		for i, a := range append(append(slices.Clone(s.OneOf), s.AnyOf...), s.AllOf...) {
			walk(fmt.Sprintf("%s|%d", where, i), a.Value)
		}
	}
	names := make([]string, 0, len(doc.Components.Schemas))
	for n := range doc.Components.Schemas {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		walk(n, doc.Components.Schemas[n].Value)
	}
	for _, path := range doc.Paths.InMatchingOrder() {
		for method, op := range doc.Paths.Value(path).Operations() {
			if rb := op.RequestBody; rb != nil && rb.Value != nil {
				for ct, mt := range rb.Value.Content {
					walk(method+" "+path+" request "+ct, mt.Schema.Value)
				}
			}
			for code, r := range op.Responses.Map() {
				for ct, mt := range r.Value.Content {
					walk(method+" "+path+" "+code+" "+ct, mt.Schema.Value)
				}
			}
		}
	}
	slices.Sort(faults)
	for _, f := range faults {
		t.Error(f)
	}
	if len(faults) > 0 {
		t.Logf("%d faults", len(faults))
	}
}

// TestOpenAPIJSON: the JSON form of the document is the same OpenAPI
// document as the YAML, valid for kin-openapi, its keys in the YAML's order.
func TestOpenAPIJSON(t *testing.T) {
	j := OpenAPIJSON
	if !bytes.HasPrefix(j, []byte("{\n  \"openapi\": \"3.1.0\",\n  \"info\": {")) {
		t.Errorf("OpenAPIJSON starts %.60q; want the YAML's keys in its order", j)
	}
	fromJSON, err := openapi3.NewLoader().LoadFromData(j)
	if err != nil {
		t.Fatal(err)
	}
	if err := fromJSON.Validate(t.Context()); err != nil {
		t.Fatalf("OpenAPIJSON is not a valid OpenAPI document: %v", err)
	}
	fromYAML, err := openapi3.NewLoader().LoadFromData(OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	a, errA := fromJSON.MarshalJSON()
	b, errB := fromYAML.MarshalJSON()
	if errA != nil || errB != nil || !bytes.Equal(a, b) || fromJSON.Paths.Len() != fromYAML.Paths.Len() {
		t.Errorf("the JSON document differs from openapi.yaml (%v, %v)", errA, errB)
	}
}

func TestYAMLToJSONRefusesNonScalarKeys(t *testing.T) {
	if _, err := yamlToJSON([]byte("? [a, b]\n: 1\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("yamlToJSON(a sequence as a key) = %v; want an error naming line 1", err)
	}
}
