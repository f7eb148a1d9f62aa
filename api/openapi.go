package api

import _ "embed"

// OpenAPI is the OpenAPI 3.1 description of the status socket (SPEC §8,
// §10.3, §11): every endpoint, body, error and event line shape. A test
// drives the real daemon and validates every exchange against it.
//
//go:embed openapi.yaml
var OpenAPI []byte
