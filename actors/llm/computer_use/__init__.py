"""Agents that speak a provider's own computer-use API: Anthropic's Messages API with its
`computer` tool (`anthropic`), OpenAI's Responses API with its computer tool (`openai`).

The model sees screenshots (scaled as the provider expects, `actors.llm.screen`) and answers
with the provider's tool actions; each is mapped onto one protocol `Action` (`actions`, `keys`)
and its coordinates back onto the screen. What the model asks that troupe cannot carry out is
said back to it as the tool's error, as a bad reply is (`loop`). Both call through the run's
`LLMClient`, so retries, capacity, the model-service classification and the transcript are the
same as the chat-completions agent's.
"""
