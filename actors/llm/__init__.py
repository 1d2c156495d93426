"""LLM-backed Agent policy, change summarizer and episode error classifier.

All three talk to an OpenAI-compatible chat-completions endpoint through one
small client (`client.py`), so OpenAI, Azure, vLLM, Ollama, LM Studio and
gateways work alike, on asyncio and on trio.
"""
