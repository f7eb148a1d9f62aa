package api

import _ "embed"

// OpenAPI is the OpenAPI 3.1 description of the status socket (SPEC §8,
// §10.3, §11): every endpoint, body, error and event line shape. A test
// drives the real daemon and validates every exchange against it.
//
//go:embed openapi.yaml
var OpenAPI []byte

// OpenAPIJSON is [OpenAPI] as JSON, its keys in the document's order, as
// GET /v1/openapi.json serves it and `forgesync openapi` prints it. It is
// made from openapi.yaml by `go generate ./api`, not when the program
// starts: a YAML parser in the program cost every forgesync process (two
// per install) a millisecond of package initialisation. A test fails when
// openapi.json is not the conversion of openapi.yaml.
//
//go:generate go test -run ^TestOpenAPIJSONIsCurrent$ . -args -update
//go:embed openapi.json
var OpenAPIJSON []byte
