"""The RPC protocol's vocabulary.

``table`` declares every command (one row each: name, request and data models, the handler's
class); ``names`` (plain tuples, imported on the hot path) lists command and event types. The
pydantic models live in ``commands``, ``responses`` and ``events``; they are the single
source of the JSON Schema in ``protocol/schema/`` and validate incoming commands. They are
imported lazily (first command with fields), never at startup.
"""
