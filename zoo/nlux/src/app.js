// The zoo's NLUX chat: @nlux/core's vanilla AiChat with @nlux/langchain's
// LangServe stream adapter. The Go backend serves a LangServe runnable at
// ./api/chat (input_schema, and /stream: SSE "data" events, then "end").
// NLUX animates streamed text into the bubble and renders its markdown.
import { createAiChat } from "@nlux/core";
import { createChatAdapter } from "@nlux/langchain";

const adapter = createChatAdapter()
  .withUrl(new URL("./api/chat", document.baseURI).href)
  .withDataTransferMode("stream")
  .create();

const chat = createAiChat()
  .withAdapter(adapter)
  .withPersonaOptions({
    assistant: { name: "Quill", tagline: "A LangServe runnable" },
    user: { name: "You" },
  })
  .withComposerOptions({ placeholder: "Ask Quill" })
  .withDisplayOptions({ colorScheme: "light", height: "100%" })
  .withConversationOptions({ layout: "bubbles" });

chat.mount(document.getElementById("root"));
