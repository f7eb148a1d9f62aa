package api

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"testing"

	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite openapi.json from openapi.yaml (go generate ./api)")

// TestOpenAPIJSONIsCurrent: the embedded openapi.json is the conversion of
// openapi.yaml; with -update (go generate ./api) it rewrites it.
func TestOpenAPIJSONIsCurrent(t *testing.T) {
	want, err := yamlToJSON(OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("openapi.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(OpenAPIJSON, want) {
		t.Error("api/openapi.json is not openapi.yaml as JSON: run go generate ./api")
	}
}

// yamlToJSON converts a YAML document to indented JSON, keeping the order
// of its mappings' keys (a Go map would sort them).
func yamlToJSON(doc []byte) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return nil, fmt.Errorf("api: openapi.yaml: %w", err)
	}
	var b bytes.Buffer
	if err := writeJSON(&b, &root); err != nil {
		return nil, fmt.Errorf("api: openapi.yaml: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("api: openapi.yaml as JSON: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// writeJSON writes the YAML node n as compact JSON.
func writeJSON(b *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return fmt.Errorf("line %d: want one document", n.Line)
		}
		return writeJSON(b, n.Content[0])
	case yaml.AliasNode:
		return writeJSON(b, n.Alias)
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: a key that is not a scalar", k.Line)
			}
			if i > 0 {
				b.WriteByte(',')
			}
			key, _ := json.Marshal(k.Value) // a string always marshals
			b.Write(key)
			b.WriteByte(':')
			if err := writeJSON(b, n.Content[i+1]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, c); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	j, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	b.Write(j)
	return nil
}
