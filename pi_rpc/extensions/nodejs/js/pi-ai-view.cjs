// What `@earendil-works/pi-ai` resolves to for extensions (as upstream maps it): pi-ai's compat
// entry point plus TypeBox's Type and a StringEnum helper built with TypeBox. Most extensions
// import only Type or StringEnum from it; the compat entry (about a second to load: the provider
// SDKs) loads on the first use of any other name (lazy-module.cjs).
"use strict";

const path = require("node:path");
const { lazyModule } = require("./lazy-module.cjs");
const { Type } = require("./typebox.mjs");

function StringEnum(values, options) {
	return Type.Unsafe({
		type: "string",
		enum: values,
		...(options?.description && { description: options.description }),
		...(options?.default && { default: options.default }),
	});
}

module.exports = lazyModule({ Type, StringEnum }, () =>
	require(path.join(__dirname, "node_modules/@earendil-works/pi-ai/dist/compat.js")),
);
