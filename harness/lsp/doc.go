// Package lsp is `replaylab lsp`: a Language Server Protocol server for
// the .feature files of a replaylab project, on stdio.
//
// It is another front end of the harness, not a second runner: the
// steps it knows are the catalogue `run` binds (a Vocabulary the command
// wires in), the Gherkin parser is godog's, undefined steps are ranked
// by the closeness `run` prints, and the recording state of a scenario
// (no recording, a stale one, no golden) is what `run` would find
// (Recordings; RunRecordings reads it with harness.ScenariosOf,
// harness.State and harness.HintsFor). It offers:
//
//   - completion of steps after a step keyword, the example as a snippet
//     with its quoted and numeric parameters as placeholders, and of the
//     tags used in features/ after "@";
//   - hover: a step's meaning, defaults, kind, whether it needs the sim,
//     its example and the Go function implementing it;
//   - diagnostics on open and change: malformed Gherkin, undefined steps
//     (with the three closest), `# tags:` comments that do not parse or
//     select nothing, and per scenario a missing or stale recording or
//     a missing golden, with the command that fixes it;
//   - go to definition (the implementing Go function), document symbols
//     (feature, rules, scenarios, examples) and code actions (replace an
//     undefined step by one of the closest; run the fixing command).
//
// The transport is JSON-RPC 2.0 with Content-Length framing (jsonrpc.go);
// documents are synchronised whole. Serve runs a session; a Server's
// handlers can also be called directly (tests, benchmarks).
package lsp
