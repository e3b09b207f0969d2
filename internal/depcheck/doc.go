// Package depcheck holds the test that enforces the module's import rules
// (the "Imports go one way" section of the architecture): which packages
// may import which, read from `go list -json ./...`. It has no code of its
// own; run it with `go test ./internal/depcheck`.
package depcheck
