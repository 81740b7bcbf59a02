"""The ``codemode`` tool: the model writes a short Python script that calls pi's other tools
(MCP tools included), searches and describes them, and combines their results; only the
script's output reaches the model.

Upstream runs JavaScript in a QuickJS sandbox inside its process. Here scripts are Python and
run in a separate interpreter process (``worker``), started per script, limited in time and
memory, killed on abort or timeout, whose only way to the tools is a pipe back to the agent
(``runner``): every nested call goes through the agent's tool pipeline like a model-issued call.

- ``source``: the optional ``# @options: {...}`` first line.
- ``declarations``: how tools are shown to scripts (Python-flavoured signatures).
- ``description``: the tool's description and what it adds to declared tools' descriptions.
- ``runner``/``worker``: running one script; ``output``: formatting its result.
- ``tool``: the tool definition.
"""
