// The zoo's AI SDK chat: useChat from @ai-sdk/react over the AI SDK UI
// message stream protocol (SSE, x-vercel-ai-ui-message-stream: v1) that
// the Go backend speaks at ./api/chat. Every message id is made in the
// browser (the stream's start chunk carries no messageId).
import React, { useState } from "react";
import { createRoot } from "react-dom/client";
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport } from "ai";

function text(m) {
  return m.parts.filter((p) => p.type === "text").map((p) => p.text).join("");
}

function App() {
  const { messages, sendMessage, status, stop, regenerate, error } = useChat({
    transport: new DefaultChatTransport({ api: "./api/chat" }),
  });
  const [input, setInput] = useState("");
  const busy = status === "submitted" || status === "streaming";
  const submit = (e) => {
    e.preventDefault();
    if (!input.trim() || busy) return;
    sendMessage({ text: input });
    setInput("");
  };
  const last = messages.length - 1;
  return (
    <div className="chat">
      <header><h1>Ada · AI SDK chat</h1></header>
      <div className="thread" role="log" aria-label="Conversation">
        {messages.map((m, i) => (
          <div key={m.id} className={"message " + m.role} data-message-id={m.id} data-role={m.role}
            data-streaming={m.role === "assistant" && i === last && status === "streaming" ? "true" : undefined}>
            <div className="who">{m.role === "user" ? "You" : "Ada"}</div>
            <div className="content">{text(m)}</div>
            {m.role === "assistant" && i === last && !busy && (
              <div className="actions">
                <button type="button" onClick={() => regenerate()}>Regenerate</button>
              </div>
            )}
          </div>
        ))}
        {status === "submitted" && <div className="pending" aria-live="polite">Thinking…</div>}
        {error && (
          <div className="error" role="alert">
            <span>Something went wrong: {error.message}</span>
            <button type="button" onClick={() => regenerate()}>Retry</button>
          </div>
        )}
      </div>
      <form className="composer" onSubmit={submit}>
        <textarea aria-label="Message" placeholder="Ask Ada" value={input}
          onChange={(e) => setInput(e.target.value)}
          onKeyDown={(e) => { if (e.key === "Enter" && !e.shiftKey) submit(e); }} />
        {busy
          ? <button type="button" onClick={() => stop()}>Stop</button>
          : <button type="submit" disabled={!input.trim()}>Send</button>}
      </form>
    </div>
  );
}

createRoot(document.getElementById("root")).render(<App />);
