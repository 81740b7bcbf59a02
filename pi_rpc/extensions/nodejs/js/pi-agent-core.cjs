// What `@earendil-works/pi-agent-core` resolves to for extensions: the published package, loaded
// on the first use of one of its names.
"use strict";

const path = require("node:path");
const { lazyModule } = require("./lazy-module.cjs");

module.exports = lazyModule({}, () =>
	require(path.join(__dirname, "node_modules/@earendil-works/pi-agent-core/dist/index.js")),
);
