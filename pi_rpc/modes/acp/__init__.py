"""``pi --mode acp``: the Agent Client Protocol (JSON-RPC 2.0 over stdio) for editors such as
Zed, JetBrains IDEs and Neovim/Emacs plugins, on the same session runtime as the rpc, json and
print modes and through the RPC mode's framing and stdout ownership.

- ``jsonrpc``: the JSON-RPC peer (errors, our requests to the client, notifications);
- ``agent``: the ACP methods and the live sessions; ``session``: one session (turns, cancel,
  configuration options, permissions); ``updates``/``content``/``tool_calls``: how pi's events,
  messages and tool calls look on the wire; ``client_fs``: the editor's buffers as the tools'
  text files; ``server``/``main``: the stdio lifecycle.
"""
