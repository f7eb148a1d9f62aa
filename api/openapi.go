package api

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"go.yaml.in/yaml/v3"
)

// OpenAPI is the OpenAPI 3.1 description of the status socket (SPEC §8,
// §10.3, §11): every endpoint, body, error and event line shape. A test
// drives the real daemon and validates every exchange against it.
//
//go:embed openapi.yaml
var OpenAPI []byte

// OpenAPIJSON returns [OpenAPI] as JSON, its keys in the document's order,
// as GET /v1/openapi.json serves it and `forgesync openapi` prints it.
var OpenAPIJSON = sync.OnceValues(func() ([]byte, error) { return yamlToJSON(OpenAPI) })

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
