// Package llm is the real model client: it speaks the OpenAI chat-completions
// protocol over HTTP to any compatible server (OpenAI, OpenRouter, Gemini's
// OpenAI endpoint, vLLM, llama.cpp, Ollama, LM Studio, …) and implements
// chat.Model.
//
// Complete posts exactly the bytes of chat.Request.Body, so the body the
// engine records is the body the server received. go-openai serves for what
// it does well (listing models, the Usage and error shapes), but the reply
// stream is read by hand with a small SSE reader, because go-openai's stream
// reader loses what real servers send and the engine needs: the "reasoning"
// delta field, unknown keys on tool calls (Gemini's extra_content with the
// thought signature that must be sent back), errors sent as an "error:" SSE
// field or an "event: error" frame, and the raw stream text for the
// inspector. It also fails a stream after EmptyMessagesLimit non-data lines,
// which proxies that send a keep-alive comment every few seconds reach on
// any long reply.
//
// What a server sends is not trusted: a reply holds at most 64 MiB, streamed
// or not; only data keeps a stream alive, so an endpoint sending nothing but
// keep-alive comments times out; and a key the server echoes into a reply is
// replaced, in the reply and in the pieces streamed to the caller, before
// anyone sees it.
package llm
