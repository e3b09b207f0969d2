package engine

// Metrics are the sizes of an agent's calls on a task, in bytes (ACT-7):
// how many calls, how many bytes of arguments they carried and how many
// bytes of results came back. The interface layer that serialises calls
// (the MCP server, per task and per call) measures them; they are bytes of
// JSON, never tokens — a token count depends on a model's tokenizer, which
// the engine does not know. An in-process caller serialises nothing and
// has no such sizes.
type Metrics struct {
	Calls         int   `json:"calls"`
	RequestBytes  int64 `json:"requestBytes"`
	ResponseBytes int64 `json:"responseBytes"`
}

// CallMetrics are one call's sizes.
type CallMetrics struct {
	Tool          string `json:"tool"`
	RequestBytes  int64  `json:"requestBytes"`
	ResponseBytes int64  `json:"responseBytes"`
}
