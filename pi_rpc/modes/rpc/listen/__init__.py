"""``pi --mode rpc --listen <address>``: the RPC protocol for clients that come and go.

- ``address``: the listen addresses (``unix:``, ``tcp:``, ``ws://``, ``wss://``) and what may bind;
- ``auth``: the bearer token of TCP/WebSocket connections and the slowing of failed attempts;
- ``hub``: sessions belong to the process: their events get process-wide ``seq`` numbers, go to a
  ring and to every connection attached to the session;
- ``connection``: one client: its options, its bounded output queue, its commands;
- ``transport``: bytes on the wire (LF-framed streams, WebSocket messages, stdio);
- ``commands``: the commands a connection answers itself (attach, detach, authenticate, ...);
- ``server``: the process lifecycle (listeners, ``--exit-when-idle``, signals).

Nothing here is imported unless ``--listen`` is given: a stdio client sees today's bytes.
"""
