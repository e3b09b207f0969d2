// The zoo's chatscope chat: @chatscope/chat-ui-kit-react's components over
// the OpenAI Chat Completions streaming protocol (POST
// ./v1/chat/completions with "stream": true; SSE chat.completion.chunk
// events, then "data: [DONE]") that the Go backend speaks. Messages carry
// no ids in the page; every answer has its own Copy and Regenerate.
import React, { useRef, useState } from "react";
import { createRoot } from "react-dom/client";
import {
  MainContainer, ChatContainer, ConversationHeader, MessageList, Message,
  MessageInput, TypingIndicator,
} from "@chatscope/chat-ui-kit-react";

async function complete(history, seed, signal, onDelta) {
  const res = await fetch("./v1/chat/completions", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ model: "zoo-1", stream: true, seed, messages: history }),
    signal,
  });
  if (!res.ok) {
    let msg = "HTTP " + res.status;
    try { msg = (await res.json()).error.message; } catch (e) { /* keep the status */ }
    throw new Error(msg);
  }
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += dec.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const event = buf.slice(0, i);
      buf = buf.slice(i + 2);
      for (const line of event.split("\n")) {
        if (!line.startsWith("data: ")) continue;
        const data = line.slice(6);
        if (data === "[DONE]") return;
        const chunk = JSON.parse(data);
        const d = chunk.choices && chunk.choices[0] && chunk.choices[0].delta;
        if (d && d.content) onDelta(d.content);
      }
    }
  }
}

function App() {
  const [msgs, setMsgs] = useState([]); // {dir, text, state, seed}
  const [busy, setBusy] = useState(false);
  const abort = useRef(null);

  const run = async (base, userIdx, seed) => {
    const history = base.filter((m) => m.state !== "error").map((m) => ({
      role: m.dir === "outgoing" ? "user" : "assistant", content: m.text,
    })).slice(0, userIdx + 1);
    const at = userIdx + 1;
    const put = (patch) => setMsgs((cur) => cur.map((m, i) => (i === at ? { ...m, ...patch } : m)));
    const ctl = new AbortController();
    abort.current = ctl;
    setBusy(true);
    let text = "";
    try {
      await complete(history, seed, ctl.signal, (d) => { text += d; put({ text, state: "streaming" }); });
      put({ text, state: "done" });
    } catch (e) {
      if (e.name === "AbortError") put({ text, state: "stopped" });
      else put({ text: "Error: " + e.message, state: "error" });
    } finally {
      abort.current = null;
      setBusy(false);
    }
  };

  const send = (_html, textContent) => {
    const t = (textContent || "").trim();
    if (!t || busy) return;
    const next = [...msgs, { dir: "outgoing", text: t, state: "done" }, { dir: "incoming", text: "", state: "waiting", seed: 0 }];
    setMsgs(next);
    run(next, next.length - 2, 0);
  };
  const regenerate = (i) => {
    if (busy) return;
    const seed = (msgs[i].seed || 0) + 1;
    const next = msgs.map((m, j) => (j === i ? { ...m, text: "", state: "waiting", seed } : m));
    setMsgs(next);
    run(next, i - 1, seed);
  };

  return (
    <div style={{ height: "100vh" }}>
      <MainContainer>
        <ChatContainer>
          <ConversationHeader>
            <ConversationHeader.Content userName="Kit" info={busy ? "writing…" : "online"} />
            <ConversationHeader.Actions>
              {busy && <button className="stop" type="button" onClick={() => abort.current && abort.current.abort()}>Stop</button>}
            </ConversationHeader.Actions>
          </ConversationHeader>
          <MessageList typingIndicator={msgs.some((m) => m.state === "waiting") ? <TypingIndicator content="Kit is typing" /> : null}>
            {msgs.filter((m) => m.state !== "waiting" || m.text).map((m, i) => (
              <Message key={i} className={"state-" + m.state}
                model={{ message: m.text, sender: m.dir === "outgoing" ? "You" : "Kit", direction: m.dir, position: "single" }}>
                {m.dir === "incoming" && (m.state === "done" || m.state === "stopped" || m.state === "error") && (
                  <Message.Footer>
                    {m.state === "stopped" && <span className="note">Stopped</span>}
                    <button type="button" onClick={() => navigator.clipboard && navigator.clipboard.writeText(m.text)}>Copy</button>
                    <button type="button" disabled={busy} onClick={() => regenerate(msgs.indexOf(m))}>Regenerate</button>
                  </Message.Footer>
                )}
              </Message>
            ))}
          </MessageList>
          <MessageInput placeholder="Message Kit" attachButton={false} sendDisabled={busy} onSend={send} />
        </ChatContainer>
      </MainContainer>
    </div>
  );
}

createRoot(document.getElementById("root")).render(<App />);
