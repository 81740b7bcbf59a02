// A module whose names load their package on first use. jiti hands extensions CommonJS
// interop objects and reads an imported name when the extension uses it, so a package an
// extension imports only for rendering (pi-tui) or for a rarely used helper (pi-ai's compat
// entry: the provider SDKs) costs nothing until then. The packages are ES modules, loaded with
// require(esm) (Node >= 22.12).
"use strict";

// Names module systems probe: answering them must not load the package.
const QUIET = new Set(["__esModule", "default", "then", "constructor", "toJSON", "module.exports"]);

function lazyModule(own, loadTarget) {
	let target;
	const load = () => {
		target ??= loadTarget();
		return target;
	};
	return new Proxy(own, {
		get(base, key) {
			if (typeof key !== "string" || key in base) return base[key];
			if (QUIET.has(key)) return undefined;
			return load()[key];
		},
		has(base, key) {
			if (typeof key !== "string" || key in base) return key in base;
			if (QUIET.has(key)) return false;
			return key in load();
		},
		ownKeys(base) {
			return [...new Set([...Reflect.ownKeys(base), ...Reflect.ownKeys(load())])];
		},
		getOwnPropertyDescriptor(base, key) {
			if (key in base) return Reflect.getOwnPropertyDescriptor(base, key);
			if (typeof key !== "string" || QUIET.has(key)) return undefined;
			const value = load()[key];
			return value === undefined ? undefined : { value, enumerable: true, configurable: true, writable: false };
		},
	});
}

module.exports = { lazyModule };
