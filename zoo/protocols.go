package zoo

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
)

// maxBody bounds a request body.
const maxBody = 1 << 20

// decode reads a JSON request body into v, answering 400 when it is not.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody)).Decode(v); err != nil {
		http.Error(w, fmt.Sprintf("zoo: bad request body: %v", err), http.StatusBadRequest)
		return false
	}
	return true
}

// sseData writes one SSE event of data lines (and an event name if any).
func sseData(w http.ResponseWriter, event string, data []byte) error {
	if event != "" {
		if _, err := fmt.Fprintf(w, "event: %s\n", event); err != nil {
			return err
		}
	}
	if data != nil {
		if _, err := fmt.Fprintf(w, "data: %s\n", data); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprint(w, "\n"); err != nil {
		return err
	}
	return flush(w)
}

// sseDone writes the data: [DONE] event that ends an AI SDK or OpenAI
// stream.
func sseDone(w http.ResponseWriter) { _ = sseData(w, "", []byte("[DONE]")) }

// failJSON answers a scripted failure after the think time: status 500
// with v as its JSON body (nothing when the request ends first).
func (s *Server) failJSON(w http.ResponseWriter, r *http.Request, v any) {
	if !sleep(r.Context(), ms(s.opt.ThinkMS)) {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write(mustJSON(v))
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps, strings and numbers are marshalled here
	}
	return b
}

// --- AI SDK UI message stream (@ai-sdk/react useChat) ---

// aisdkRequest is what DefaultChatTransport posts.
type aisdkRequest struct {
	ID       string `json:"id"`
	Trigger  string `json:"trigger"` // submit-message or regenerate-message
	Messages []struct {
		ID    string `json:"id"`
		Role  string `json:"role"`
		Parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"messages"`
}

// aisdkChat answers with a UI message stream: start (no messageId, so the
// browser makes the assistant message's id), text-start, text-delta…,
// text-end, finish, [DONE]; a scripted failure is an error chunk.
func (s *Server) aisdkChat(w http.ResponseWriter, r *http.Request) {
	var req aisdkRequest
	if !decode(w, r, &req) {
		return
	}
	text := ""
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if m := req.Messages[i]; m.Role == "user" {
			for _, p := range m.Parts {
				if p.Type == "text" {
					text += p.Text
				}
			}
			break
		}
	}
	variant := 0
	if req.Trigger == "regenerate-message" {
		variant = 1
	}
	a := Script(text, variant)
	sseHeaders(w)
	w.Header().Set("x-vercel-ai-ui-message-stream", "v1")
	chunk := func(v map[string]any) error { return sseData(w, "", mustJSON(v)) }
	if err := chunk(map[string]any{"type": "start"}); err != nil {
		return
	}
	if a.Err != "" {
		if !sleep(r.Context(), ms(s.opt.ThinkMS)) {
			return
		}
		_ = chunk(map[string]any{"type": "error", "errorText": a.Err})
		sseDone(w)
		return
	}
	_ = chunk(map[string]any{"type": "start-step"})
	_ = chunk(map[string]any{"type": "text-start", "id": "text-1"})
	err := s.stream(r.Context(), a, func(p string) error {
		return chunk(map[string]any{"type": "text-delta", "id": "text-1", "delta": p})
	})
	if err != nil {
		return
	}
	_ = chunk(map[string]any{"type": "text-end", "id": "text-1"})
	_ = chunk(map[string]any{"type": "finish-step"})
	_ = chunk(map[string]any{"type": "finish", "finishReason": "stop"})
	sseDone(w)
}

// --- deep-chat connect, stream: true ---

// deepchatRequest is what deep-chat posts to its connect url.
type deepchatRequest struct {
	Messages []struct {
		Role string `json:"role"`
		Text string `json:"text"`
	} `json:"messages"`
}

// deepchatChat streams deep-chat's Response objects as SSE: {"text": part}
// per event; a scripted failure is one {"error": …} event.
func (s *Server) deepchatChat(w http.ResponseWriter, r *http.Request) {
	var req deepchatRequest
	if !decode(w, r, &req) {
		return
	}
	text := ""
	if n := len(req.Messages); n > 0 {
		text = req.Messages[n-1].Text
	}
	a := Script(text, 0)
	sseHeaders(w)
	if err := flush(w); err != nil {
		return
	}
	if a.Err != "" {
		if sleep(r.Context(), ms(s.opt.ThinkMS)) {
			_ = sseData(w, "", mustJSON(map[string]string{"error": a.Err}))
		}
		return
	}
	_ = s.stream(r.Context(), a, func(p string) error {
		return sseData(w, "", mustJSON(map[string]string{"text": p}))
	})
}

// --- OpenAI Chat Completions, stream: true (chatscope) ---

// completionRequest is a Chat Completions request.
type completionRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Seed     int    `json:"seed"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

// chatscopeCompletions answers chat.completion.chunk events, the first
// with the assistant role, the last with finish_reason "stop", then
// [DONE]; a scripted failure is a 500 with an OpenAI error object. The
// request's seed picks the wording (the page sends a new seed to
// regenerate).
func (s *Server) chatscopeCompletions(w http.ResponseWriter, r *http.Request) {
	var req completionRequest
	if !decode(w, r, &req) {
		return
	}
	if !req.Stream {
		http.Error(w, `{"error":{"message":"this backend only streams: set \"stream\": true","type":"invalid_request_error","param":"stream","code":null}}`, http.StatusBadRequest)
		return
	}
	text := ""
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			text = req.Messages[i].Content
			break
		}
	}
	a := Script(text, req.Seed)
	if a.Err != "" {
		s.failJSON(w, r, map[string]any{"error": map[string]any{"message": a.Err, "type": "server_error", "param": nil, "code": nil}})
		return
	}
	id := fmt.Sprintf("chatcmpl-zoo%08x", hash(text, req.Seed))
	model := req.Model
	if model == "" {
		model = "zoo-1"
	}
	chunk := func(delta map[string]any, finish any) error {
		return sseData(w, "", mustJSON(map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": 1767225600, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}))
	}
	sseHeaders(w)
	if err := chunk(map[string]any{"role": "assistant", "content": ""}, nil); err != nil {
		return
	}
	if err := s.stream(r.Context(), a, func(p string) error { return chunk(map[string]any{"content": p}, nil) }); err != nil {
		return
	}
	_ = chunk(map[string]any{}, "stop")
	sseDone(w)
}

// --- LangServe /stream (NLUX's LangServe adapter) ---

// nluxInputSchema is the runnable's input schema: a plain string, so the
// adapter posts the user's message as the input.
func nluxInputSchema(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"title":"ZooChatInput","type":"string"}`))
}

// nluxStream answers LangServe's stream events: metadata (the run id),
// a data event per part (a JSON string), end; a scripted failure is a 500
// with LangServe's {"detail"}.
func (s *Server) nluxStream(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input json.RawMessage `json:"input"`
	}
	if !decode(w, r, &req) {
		return
	}
	var text string
	if err := json.Unmarshal(req.Input, &text); err != nil {
		http.Error(w, `{"detail":"input: want a string (see input_schema)"}`, http.StatusUnprocessableEntity)
		return
	}
	a := Script(text, 0)
	if a.Err != "" {
		s.failJSON(w, r, map[string]string{"detail": a.Err})
		return
	}
	sseHeaders(w)
	runID := fmt.Sprintf("00000000-0000-4000-8000-%012x", hash(text, 0)&0xffffffffffff)
	if err := sseData(w, "metadata", mustJSON(map[string]string{"run_id": runID})); err != nil {
		return
	}
	if err := s.stream(r.Context(), a, func(p string) error { return sseData(w, "data", mustJSON(p)) }); err != nil {
		return
	}
	_ = sseData(w, "end", nil)
}

func hash(text string, n int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d:%s", n, text)
	return h.Sum64()
}
