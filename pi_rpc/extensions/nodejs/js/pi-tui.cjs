// What `@earendil-works/pi-tui` resolves to for extensions: the published package, loaded on the
// first use of one of its names (most extensions use it only to render, which RPC, print, JSON
// and ACP modes never do).
"use strict";

const path = require("node:path");
const { lazyModule } = require("./lazy-module.cjs");

module.exports = lazyModule({}, () => require(path.join(__dirname, "node_modules/@earendil-works/pi-tui/dist/index.js")));
