"""llama.cpp's OpenAI-compatible server (llama-cpp-python's), started with two fixes to
its `chatml-function-calling` chat format, so that a model reads what codeact sends it
in either action format:

- Jinja's autoescape off. The format's template is made with HTML autoescape on, so
  every quote in every message (the screen, the model's own earlier code) reaches the
  model as `&#34;`; a small model copies that into its next snippet, which then does
  not parse.
- Function results kept. The template renders system, user and assistant messages only
  and drops those whose role is `tool`, so a model calling functions never reads what
  came of its calls (an error, a value); each becomes a user message that says it is
  the result of the call before it.

Usage: python scripts/llama_server.py --config_file FILE (the server's own arguments).
Used by scripts/real-model.sh; not by the tests, whose tiny model is served as is.
"""

import runpy
import sys

import jinja2
from llama_cpp import llama_chat_format as formats

# The template calls jinja2.select_autoescape(["html", "xml"]) each time it renders.
jinja2.select_autoescape = lambda *args, **kwargs: False

_original = formats.chatml_function_calling


def _with_results(**kwargs):
    messages = []
    for message in kwargs.get("messages") or []:
        if message.get("role") == "tool":
            content = message.get("content") or ""
            message = {"role": "user", "content": f"Result of your function call:\n{content}"}
        messages.append(message)
    kwargs["messages"] = messages
    return _original(**kwargs)


formats.LlamaChatCompletionHandlerRegistry().register_chat_completion_handler(
    "chatml-function-calling", _with_results, overwrite=True
)

sys.argv = ["llama_cpp.server", *sys.argv[1:]]
runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
