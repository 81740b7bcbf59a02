// The Node side of pi_rpc's TypeScript/JavaScript extensions: one process per pi process.
//
// It loads extensions with jiti (TypeScript without a build step) exactly as upstream pi does,
// gives each one an ExtensionAPI whose registrations and actions are forwarded to the Python
// runtime, and runs their handlers, tools and commands when Python asks. The JSON protocol it
// speaks is documented in protocol/README.md ("TypeScript extension sidecar"); in short:
//
//   Python -> Node (stdin)  {t:"req", id, op, ...}        requests (load, call, tool, prepare, stream, cmd, bus, fn, component, ping)
//                           {t:"res", id, value|error}     answers to Node's async requests
//                           {t:"abort", sid} {t:"cancel", id} {t:"invalidate", gen, message}
//   Node -> Python (OUT_FD) {t:"hello", protocol, node}    once, at start
//                           {t:"res", id, value|error, patch?}
//                           {t:"sync", op, ...}            answered on SYNC_FD (Node blocks on it)
//                           {t:"req", id, op, ...}         answered on stdin (async work)
//                           {t:"note", op, ...}            one-way (tool updates, fire-and-forget UI)
//
// Nothing an extension prints reaches pi's stdout: console.* and process.stdout go to stderr.

import * as fs from "node:fs";
import * as nodeModule from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { format } from "node:util";
import { appKeybindings } from "./keybindings.mjs";
import { overlayLayout } from "./overlay-layout.mjs";

export const PROTOCOL_VERSION = 1;
const [OUT_FD, SYNC_FD] = (process.env.PI_SIDECAR_FDS || "").split(",").map(Number);
const HERE = path.dirname(fileURLToPath(import.meta.url));

// V8's compile cache for jiti, TypeBox, pi-ai ... (Node >= 22.1): later starts skip compiling.
try {
	nodeModule.enableCompileCache?.(path.join(HERE, ".compile-cache"));
} catch {}

// ---------------------------------------------------------------------------------------------
// Extension output goes to stderr (the RPC wire is pi's stdout; this process never writes there).

function writeErr(text) {
	try {
		fs.writeSync(2, text);
	} catch {}
}
for (const name of ["log", "info", "debug", "warn", "error", "trace"]) {
	console[name] = (...args) => writeErr(`${format(...args)}\n`);
}
process.stdout.write = (chunk, encoding, callback) => {
	writeErr(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
	const done = typeof encoding === "function" ? encoding : callback;
	if (typeof done === "function") done();
	return true;
};

// ---------------------------------------------------------------------------------------------
// Encoding: functions and AbortSignals become references; Python turns them into callables and
// signals. A message carrying references is flagged {x:1} so the other side only then walks it.

const functions = new Map(); // id -> function (callbacks handed to Python: withSession, onComplete ...)
const signalIds = new WeakMap(); // AbortSignal -> id (signals handed to Python)
const signals = new Map(); // id -> AbortController (signals Python handed to us)
let nextId = 1;

function encode(message) {
	let refs = false;
	const text = JSON.stringify(message, (key, value) => {
		if (typeof value === "function") {
			refs = true;
			const id = `f${nextId++}`;
			functions.set(id, value);
			return { $pi: "fn", id };
		}
		if (typeof value === "bigint") return value.toString();
		if (value instanceof AbortSignal) {
			refs = true;
			let id = signalIds.get(value);
			if (id === undefined) {
				id = `s${nextId++}`;
				signalIds.set(value, id);
				value.addEventListener("abort", () => note("abort", { sid: id }), { once: true });
			}
			return { $pi: "signal", id, aborted: value.aborted };
		}
		if (value instanceof Error) return { message: value.message, name: value.name };
		return value;
	});
	if (!refs) return text;
	return `${text.slice(0, -1)}${text.length > 2 ? "," : ""}"x":1}`;
}

function revive(key, value) {
	if (value && typeof value === "object" && value.$pi === "signal") {
		let controller = signals.get(value.id);
		if (!controller) {
			controller = new AbortController();
			signals.set(value.id, controller);
		}
		if (value.aborted && !controller.signal.aborted) controller.abort();
		return controller.signal;
	}
	if (value && typeof value === "object" && value.$pi === "ctx") return createContext(value);
	if (value && typeof value === "object" && value.$pi === "error") return new Error(String(value.message));
	if (value && typeof value === "object" && value.$pi === "sm") return writableSessionManager(value.id);
	return value;
}

// Aborts a signal Python handed over (its controller lives in `signals`).
function abortRemote(signal) {
	for (const controller of signals.values()) {
		if (controller.signal === signal && !signal.aborted) controller.abort();
	}
}

// newSession's setup(sm): the new session's SessionManager, read and written in Python.
function writableSessionManager(id) {
	return new Proxy(
		{},
		{
			get(_target, key) {
				if (typeof key !== "string" || key === "then") return undefined;
				return (...args) => syncCall("smw", { sm: id, name: key, args });
			},
		},
	);
}

function writeAll(fd, text) {
	const buffer = Buffer.from(text, "utf8");
	let offset = 0;
	while (offset < buffer.length) {
		try {
			offset += fs.writeSync(fd, buffer, offset, buffer.length - offset);
		} catch (error) {
			if (error.code === "EAGAIN") continue;
			if (error.code === "EPIPE") process.exit(0);
			throw error;
		}
	}
}

function send(message) {
	if (process.env.PI_SIDECAR_DEBUG) writeErr(`sidecar send ${message.t} ${message.id ?? ""} ${Date.now() % 100000}\n`);
	writeAll(OUT_FD, `${encode(message)}\n`);
}

function note(op, payload) {
	send({ t: "note", op, ...payload });
}

// A synchronous call into Python: upstream's ExtensionAPI getters and actions are synchronous
// (pi.getActiveTools(), ctx.sessionManager.getEntries() ...), so Node blocks on SYNC_FD until
// Python answers. Python answers these at once (none of them waits on Node).
const syncBuffer = Buffer.alloc(65536);
function syncCall(op, payload) {
	send({ t: "sync", op, ...payload });
	const chunks = [];
	for (;;) {
		let read;
		try {
			read = fs.readSync(SYNC_FD, syncBuffer, 0, syncBuffer.length, null);
		} catch (error) {
			if (error.code === "EAGAIN") continue;
			throw error;
		}
		if (read === 0) process.exit(0);
		const chunk = Buffer.from(syncBuffer.subarray(0, read));
		chunks.push(chunk);
		if (chunk[read - 1] === 10) break;
	}
	const text = Buffer.concat(chunks).toString("utf8");
	const answer = text.includes('"$pi"') ? JSON.parse(text, revive) : JSON.parse(text);
	if (answer.error !== undefined) throw new Error(answer.error);
	return answer.value;
}

// Asynchronous calls into Python (dialogs, exec, setModel, session control).
const waiting = new Map(); // id -> {resolve, reject}
function asyncCall(op, payload) {
	const id = nextId++;
	return new Promise((resolve, reject) => {
		waiting.set(id, { resolve, reject });
		send({ t: "req", id, op, ...payload });
	});
}

// The helpers of our pi-coding-agent module reach Python through these.
globalThis.__piSidecar = { syncCall, asyncCall };

// ---------------------------------------------------------------------------------------------
// Generations (one per Python SharedRuntime: a session replacement or reload makes a new one;
// the old one turns stale) and extensions.

const generations = new Map(); // gen -> {stale: string | null}
const extensions = new Map(); // ext id -> {id, gen, path, state}
const handlers = new Map(); // handler id -> {fn, ext}
const tools = new Map(); // tool id -> {definition, ext}
const commands = new Map(); // command id -> {options, ext}
const busHandlers = new Map(); // subscription id -> {fn, ext, channel}
const streams = new Map(); // `${ext id}:${api}` -> {fn, ext} (registerProvider's streamSimple)

function generation(gen) {
	let entry = generations.get(gen);
	if (!entry) {
		entry = { stale: null };
		generations.set(gen, entry);
	}
	return entry;
}

function assertGeneration(gen) {
	const stale = generation(gen).stale;
	if (stale) throw new Error(stale);
}

const STALE_MESSAGE =
	"This extension ctx is stale after session replacement or reload. Do not use a captured pi or command ctx after ctx.newSession(), ctx.fork(), ctx.switchSession(), or ctx.reload(). For newSession, fork, and switchSession, move post-replacement work into withSession and use the ctx passed to withSession. For reload, do not use the old ctx after await ctx.reload().";

const MUTABLE_FIELDS = {
	tool_call: "input",
	before_agent_start: "systemPromptOptions",
	before_provider_headers: "headers",
};

function plainTool(tool) {
	const copy = {};
	for (const [key, value] of Object.entries(tool)) {
		if (typeof value !== "function") copy[key] = value;
	}
	copy.hasPrepareArguments = typeof tool.prepareArguments === "function";
	return copy;
}

function createAPI(ext) {
	const api = (call, args) => syncCall("api", { ext: ext.id, call, args });
	const assertActive = () => {
		if (ext.state === "failed") {
			throw new Error(`Extension "${ext.path}" failed to load and its API is no longer active.`);
		}
		assertGeneration(ext.gen);
	};
	const call = (op) => (...args) => {
		assertActive();
		return api(op, args);
	};
	const renderer = (kind) => (customType) => {
		assertActive();
		api("registerRenderer", [kind, typeof customType === "string" ? customType : null]);
	};
	return {
		on(event, handler) {
			assertActive();
			const id = `h${nextId++}`;
			handlers.set(id, { fn: handler, ext });
			api("on", [event, id]);
			return () => {
				if (!handlers.has(id)) return;
				handlers.delete(id);
				syncCall("api", { ext: ext.id, call: "off", args: [id] });
			};
		},
		registerTool(tool) {
			assertActive();
			if (typeof tool.parameters !== "object" || tool.parameters === null || Array.isArray(tool.parameters)) {
				throw new Error(
					`Tool "${tool.name}" registered by extension "${ext.path}" must define an object parameter schema.`,
				);
			}
			tools.set(`${ext.id}:${tool.name}`, { definition: tool, ext });
			api("registerTool", [plainTool(tool)]);
		},
		registerCommand(name, options) {
			assertActive();
			if (typeof name !== "string" || name.length === 0) {
				throw new Error(
					`Command registered by extension "${ext.path}" must have a non-empty string name. Use pi.registerCommand("name", { description, handler }).`,
				);
			}
			if (typeof options?.handler !== "function") {
				throw new Error(`Command "/${name}" registered by extension "${ext.path}" must define handler().`);
			}
			commands.set(`${ext.id}:${name}`, { options, ext });
			api("registerCommand", [name, { description: options.description }]);
		},
		registerShortcut(shortcut, options) {
			assertActive();
			api("registerShortcut", [shortcut, { description: options?.description }]);
		},
		registerFlag: call("registerFlag"),
		getFlag: call("getFlag"),
		registerMessageRenderer: renderer("message"),
		registerEntryRenderer: renderer("entry"),
		registerToolRenderer: renderer("tool"),
		registerMarkdownTransformer: renderer("markdown"),
		sendMessage: call("sendMessage"),
		sendUserMessage: call("sendUserMessage"),
		appendEntry: call("appendEntry"),
		setSessionName: call("setSessionName"),
		getSessionName: call("getSessionName"),
		setLabel: call("setLabel"),
		getActiveTools: call("getActiveTools"),
		getAllTools: call("getAllTools"),
		setActiveTools: call("setActiveTools"),
		getCommands: call("getCommands"),
		getThinkingLevel: call("getThinkingLevel"),
		setThinkingLevel: call("setThinkingLevel"),
		getSettings: call("getSettings"),
		registerMcpServer: call("registerMcpServer"),
		unregisterMcpServer: call("unregisterMcpServer"),
		getMcpServers: call("getMcpServers"),
		unregisterProvider: call("unregisterProvider"),
		registerProvider(providerOrName, config) {
			assertActive();
			if (typeof providerOrName !== "string") {
				throw new Error(
					"pi.registerProvider(provider) with a native provider object is not supported by pi_rpc; register by name with a models.json-style config",
				);
			}
			if (!config) throw new Error("Provider config is required when registering by name");
			let plain = config;
			if (typeof config.streamSimple === "function") {
				if (!config.api) throw new Error(`Provider ${providerOrName}: "api" is required when registering streamSimple.`);
				// Python's agent loop calls it through the "stream" request; events flow back as notes.
				streams.set(`${ext.id}:${config.api}`, { fn: config.streamSimple, ext });
				plain = { ...config, streamSimple: undefined, hasStreamSimple: true };
			}
			if (plain.oauth && typeof plain.oauth === "object" && typeof plain.oauth.login === "function") {
				// Python cannot hand JavaScript its callbacks: login gets a login id, and the callbacks
				// made here reach the front-end's questions and notices through "oauthUi" calls.
				const login = plain.oauth.login;
				const loginById = (loginId) => {
					const ui = (kind, payload) => asyncCall("oauthUi", { login: loginId, kind, payload });
					const tell = (kind, payload) => void ui(kind, payload).catch(() => {});
					return login({
						onAuth: (info) => tell("onAuth", [info]),
						onDeviceCode: (info) => tell("onDeviceCode", [info]),
						onPrompt: (prompt) => ui("onPrompt", [prompt]),
						onProgress: (message) => tell("onProgress", [message]),
						onManualCodeInput: () => ui("onManualCodeInput", []),
						onSelect: (prompt) => ui("onSelect", [prompt]),
						signal: undefined,
					});
				};
				plain = { ...plain, oauth: { ...plain.oauth, login: loginById, loginById: true } };
			}
			api("registerProvider", [providerOrName, plain]);
		},
		registerVirtualModel(model) {
			assertActive();
			if (!model || typeof model !== "object") throw new Error("Virtual model definition is required");
			const route = model.route;
			// Python asks the router through this callback (one "fn" request per routed request).
			// Returning request.state itself keeps the stored state: that identity is only seen here.
			const routed =
				typeof route === "function"
					? async (request, ctx) => {
							const answer = await route(request, ctx);
							if (answer && typeof answer === "object" && answer.state === request.state) {
								const { state: _kept, ...rest } = answer;
								return rest;
							}
							return answer;
						}
					: route;
			api("registerVirtualModel", [{ ...model, route: routed }]);
		},
		unregisterVirtualModel: call("unregisterVirtualModel"),
		exec(command, args, options) {
			assertActive();
			return asyncCall("api", { ext: ext.id, call: "exec", args: [command, args ?? [], options ?? {}] });
		},
		setModel(model) {
			assertActive();
			return asyncCall("api", { ext: ext.id, call: "setModel", args: [model] });
		},
		events: {
			emit(channel, data) {
				assertActive();
				// Subscribers in this process run first and synchronously, as upstream's bus calls
				// them inside emit(); Python's subscribers get it from Python's bus.
				for (const subscription of [...busHandlers.values()]) {
					if (subscription.channel !== channel || generation(subscription.ext.gen).stale) continue;
					deliverBus(subscription, data);
				}
				api("busEmit", [channel, data]);
			},
			on(channel, handler) {
				assertActive();
				const id = `b${nextId++}`;
				busHandlers.set(id, { fn: handler, ext, channel });
				api("busOn", [channel, id]);
				return () => {
					if (!busHandlers.has(id)) return;
					busHandlers.delete(id);
					syncCall("api", { ext: ext.id, call: "busOff", args: [id] });
				};
			},
		},
	};
}

function deliverBus(subscription, data) {
	const report = (error) =>
		note("error", {
			ext: subscription.ext.id,
			event: `events:${subscription.channel}`,
			error: error instanceof Error ? error.message : String(error),
		});
	try {
		const result = subscription.fn(data);
		if (result && typeof result.then === "function") result.then(undefined, report);
	} catch (error) {
		report(error);
	}
}

// ---------------------------------------------------------------------------------------------
// ctx: every member reads the live session in Python when used (as upstream's getters do).

const plainTheme = new Proxy(
	{ appearance: "dark", colors: {} },
	{
		get(target, key) {
			if (key in target) return target[key];
			return (...args) => (typeof args[args.length - 1] === "string" ? args[args.length - 1] : args[0]);
		},
	},
);

function remoteObject(ref, op, asyncMethods = new Set()) {
	return new Proxy(
		{},
		{
			get(_target, key) {
				if (typeof key !== "string" || key === "then") return undefined;
				return (...args) => {
					assertGeneration(ref.g);
					if (asyncMethods.has(key)) return asyncCall(op, { ctx: ref, name: key, args });
					return syncCall(op, { ctx: ref, name: key, args });
				};
			},
		},
	);
}

const UI_DIALOGS = new Set(["select", "confirm", "input", "editor", "custom"]);
const UI_GETTERS = new Set(["getEditorText", "getAllThemes", "getTheme", "setTheme", "getToolsExpanded", "getEditorComponent"]);

function createUI(ref) {
	return new Proxy(
		{},
		{
			get(_target, key) {
				if (key === "theme") return plainTheme;
				if (typeof key !== "string" || key === "then") return undefined;
				if (key === "onTerminalInput") return () => () => {};
				if (UI_DIALOGS.has(key)) {
					return (...args) => {
						assertGeneration(ref.g);
						// Upstream's dialogs take (title, x, {timeout, signal}); Python's take them apart.
						if (key === "custom") return openCustom(ref, args[0], args[1]);
						const options = key === "editor" ? undefined : args[2];
						const plain = key === "editor" ? args : [args[0], args[1], options?.timeout, options?.signal];
						return asyncCall("ui", { ctx: ref, name: key, args: plain });
					};
				}
				if (UI_GETTERS.has(key)) {
					return (...args) => {
						assertGeneration(ref.g);
						return syncCall("ui", { ctx: ref, name: key, args });
					};
				}
				if (CHROME_FACTORIES[key] !== undefined) {
					// setWidget(key, factory, options), setHeader(factory), setFooter(factory): the
					// component stays here as a custom one does; Python draws it (interactive mode).
					return (...args) => {
						assertGeneration(ref.g);
						const at = CHROME_FACTORIES[key];
						const plain = args.map((arg, index) =>
							typeof arg === "function" ? (index === at ? chromeComponent(ref, key, arg) : null) : arg,
						);
						note("ui", { ctx: ref, name: key, args: plain, x: 1 });
					};
				}
				return (...args) => {
					assertGeneration(ref.g);
					note("ui", { ctx: ref, name: key, args: args.map((arg) => (typeof arg === "function" ? null : arg)) });
				};
			},
		},
	);
}

// Where a component factory sits in the arguments of the ctx.ui methods that take one.
const CHROME_FACTORIES = { setWidget: 1, setHeader: 0, setFooter: 0 };

// upstream's ReadonlyFooterDataProvider, read from Python when the footer renders (no branch
// watcher: onBranchChange never fires).
function footerData(ref) {
	const read = () => syncCall("ui", { ctx: ref, name: "getFooterData", args: [] }) ?? {};
	return {
		getGitBranch: () => read().branch ?? null,
		getExtensionStatuses: () => new Map(Object.entries(read().statuses ?? {})),
		getAvailableProviderCount: () => read().providers ?? 0,
		onBranchChange: () => () => {},
	};
}

// A widget, header or footer component: an entry as a custom component's, opened and rendered
// through the same "component" requests, never focused and with no done(); Python's close
// disposes of it (replaced or cleared), as upstream's dispose() of the one it replaces.
function chromeComponent(ref, key, factory) {
	const id = `c${nextId++}`;
	const withData = key === "setFooter";
	customs.set(id, {
		factory: (tui, theme) => (withData ? factory(tui, theme, footerData(ref)) : factory(tui, theme)),
		options: undefined,
		passive: true,
		component: undefined,
		closed: false,
		resolve() {},
		reject() {},
		size: { columns: 80, rows: 24 },
		overlays: [],
		focus: undefined,
		focusOrder: 0,
	});
	return { $pi: "component", id, overlay: false };
}

// ---------------------------------------------------------------------------------------------
// ctx.ui.custom(factory, options): the component lives here; a front-end that can draw it (the
// interactive mode) asks for its lines and hands it keys through "component" requests. Python
// gets a reference ({$pi:"component", id}); a front-end that draws nothing (RPC) answers the
// "custom" call at once and the factory never runs, as in upstream's RPC mode.

const customs = new Map(); // component id -> entry (see openCustom)

function openCustom(ref, factory, options) {
	const id = `c${nextId++}`;
	return new Promise((resolve, reject) => {
		const entry = {
			factory,
			options,
			component: undefined,
			closed: false,
			resolve,
			reject,
			size: { columns: 80, rows: 24 },
			overlays: [], // pi-tui's overlay stack: {component, options, hidden, focusOrder, preFocus, bounds}
			focus: undefined, // the component keys go to
			focusOrder: 0,
		};
		customs.set(id, entry);
		const plainOptions = { overlay: Boolean(options?.overlay) };
		// Python answers once its dialog is gone: undefined unless done() already resolved.
		asyncCall("ui", { ctx: ref, name: "custom", args: [{ $pi: "component", id, overlay: plainOptions.overlay }, plainOptions], x: 1 }).then(
			() => closeCustom(id, undefined),
			(error) => closeCustom(id, undefined, error),
		);
	});
}

function closeCustom(id, result, error) {
	const entry = customs.get(id);
	if (!entry) return;
	customs.delete(id);
	if (globalThis.__piSidecar.theme === entry.theme) globalThis.__piSidecar.theme = undefined;
	if (!entry.closed) {
		entry.closed = true;
		if (error) entry.reject(error);
		else entry.resolve(result);
	}
	entry.overlays.length = 0;
	try {
		entry.component?.dispose?.();
	} catch {}
}

// The theme custom components get: upstream's Theme methods over the front-end's palette
// (Python sends [open, close] SGR codes per role with "open"; a role without one stays plain).
function paletteTheme(palette) {
	const fg = palette?.fg ?? {};
	const bg = palette?.bg ?? {};
	const wrap = (open, close) => (text) => `${open}${text}${close}`;
	return {
		name: palette?.name ?? "dark",
		appearance: palette?.appearance ?? "dark",
		fg: (role, text) => (fg[role] ? `${fg[role][0]}${text}${fg[role][1]}` : String(text)),
		bg: (role, text) => (bg[role] ? `${bg[role][0]}${text}${bg[role][1]}` : String(text)),
		getFgAnsi: (role) => fg[role]?.[0] ?? "",
		getBgAnsi: (role) => bg[role]?.[0] ?? "",
		getColorMode: () => "truecolor",
		bold: wrap("\x1b[1m", "\x1b[22m"),
		italic: wrap("\x1b[3m", "\x1b[23m"),
		underline: wrap("\x1b[4m", "\x1b[24m"),
		inverse: wrap("\x1b[7m", "\x1b[27m"),
		strikethrough: wrap("\x1b[9m", "\x1b[29m"),
		getThinkingBorderColor: () => (text) => (fg.thinkingText ? `${fg.thinkingText[0]}${text}${fg.thinkingText[1]}` : text),
		getBashModeBorderColor: () => (text) => (fg.bashMode ? `${fg.bashMode[0]}${text}${fg.bashMode[1]}` : text),
	};
}

function setFocus(entry, component) {
	if (entry.focus === component) return;
	if (entry.focus && "focused" in entry.focus) entry.focus.focused = false;
	entry.focus = component ?? undefined;
	if (component && typeof component === "object") component.focused = true; // pi-tui's Focusable
}

function overlayVisible(entry, overlay) {
	if (overlay.hidden) return false;
	return overlay.options?.visible ? Boolean(overlay.options.visible(entry.size.columns, entry.size.rows)) : true;
}

function topOverlay(entry) {
	let top;
	for (const overlay of entry.overlays) {
		if (overlay.options?.nonCapturing || !overlayVisible(entry, overlay)) continue;
		if (!top || overlay.focusOrder > top.focusOrder) top = overlay;
	}
	return top;
}

// pi-tui's TUI.showOverlay over this component's own overlay stack: the handle hides, shows,
// focuses and unfocuses as upstream's does; the front-end draws the stack where overlayLayout says.
function showOverlay(entry, requestRender, component, options) {
	const overlay = { component, options, hidden: false, focusOrder: ++entry.focusOrder, preFocus: entry.focus };
	entry.overlays.push(overlay);
	if (!options?.nonCapturing && overlayVisible(entry, overlay)) setFocus(entry, component);
	requestRender();
	const refocus = () => {
		if (entry.focus === component) setFocus(entry, topOverlay(entry)?.component ?? overlay.preFocus);
	};
	return {
		hide() {
			const index = entry.overlays.indexOf(overlay);
			if (index === -1) return;
			entry.overlays.splice(index, 1);
			for (const other of entry.overlays) if (other.preFocus === component) other.preFocus = overlay.preFocus;
			refocus();
			requestRender();
		},
		setHidden(hidden) {
			if (overlay.hidden === hidden) return;
			overlay.hidden = hidden;
			if (hidden) refocus();
			else if (!options?.nonCapturing && overlayVisible(entry, overlay)) {
				overlay.focusOrder = ++entry.focusOrder;
				setFocus(entry, component);
			}
			requestRender();
		},
		isHidden: () => overlay.hidden,
		focus() {
			if (!entry.overlays.includes(overlay) || !overlayVisible(entry, overlay)) return;
			overlay.focusOrder = ++entry.focusOrder;
			setFocus(entry, component);
			requestRender();
		},
		unfocus(unfocusOptions) {
			if (entry.focus !== component && !unfocusOptions) return;
			const top = topOverlay(entry);
			setFocus(entry, unfocusOptions ? unfocusOptions.target : top && top !== overlay ? top.component : overlay.preFocus);
			requestRender();
		},
		isFocused: () => entry.focus === component,
		getBounds: () => (entry.overlays.includes(overlay) && overlay.bounds ? { ...overlay.bounds } : undefined),
	};
}

function customTui(id, entry) {
	const requestRender = () => {
		if (entry.closed || entry.renderQueued) return;
		entry.renderQueued = true;
		// One note per burst of requestRender() calls (a key handler often calls it several times).
		setImmediate(() => {
			entry.renderQueued = false;
			if (!entry.closed) note("component", { cid: id, event: "render" });
		});
	};
	return {
		requestRender,
		terminal: {
			get rows() {
				return entry.size.rows;
			},
			get columns() {
				return entry.size.columns;
			},
		},
		get width() {
			return entry.size.columns;
		},
		showOverlay: (component, options) => showOverlay(entry, requestRender, component, options),
		hasOverlay: () => entry.overlays.some((overlay) => overlayVisible(entry, overlay)),
		setFocus: (component) => setFocus(entry, component),
		start() {},
		stop() {},
	};
}

// pi-tui's markers inside rendered lines: the fake cursor becomes reverse video (as pi-tui draws
// it without a hardware cursor), the other APC markers go.
const FAKE_CURSOR = /\x1b_pi:fc\x07(.*?)(?:\x1b_pi:\/fc\x07|$)/gs;
const cleanLine = (line) =>
	String(line)
		.replace(FAKE_CURSOR, (_m, text) => `\x1b[7m${text || " "}\x1b[27m`)
		.replace(/\x1b_[^\x07]*\x07/g, "");

// The lines of a non-overlay component and, for overlays, each visible one back to front with
// the rectangle pi-tui would composite it at (rows from the top of the terminal).
function renderCustom(entry, width) {
	if (entry.closed || !entry.component) return { closed: true };
	const { columns, rows } = entry.size;
	let lines = [];
	if (!entry.options?.overlay) {
		const rendered = entry.component.render(width);
		lines = Array.isArray(rendered) ? rendered.map(cleanLine) : [];
	}
	const visible = entry.overlays.filter((overlay) => overlayVisible(entry, overlay));
	visible.sort((a, b) => a.focusOrder - b.focusOrder);
	const overlays = [];
	for (const overlay of entry.overlays) overlay.bounds = undefined;
	for (const overlay of visible) {
		const { width: w, maxHeight } = overlayLayout(overlay.options, 0, columns, rows);
		let shown = overlay.component.render(w);
		shown = (Array.isArray(shown) ? shown : []).map(cleanLine);
		if (maxHeight !== undefined && shown.length > maxHeight) shown = shown.slice(0, maxHeight);
		const { row, col } = overlayLayout(overlay.options, shown.length, columns, rows);
		overlay.bounds = { row, col, width: w, height: shown.length };
		overlays.push({ row, col, width: w, lines: shown });
	}
	return { lines, overlays };
}

async function componentRequest(request) {
	const entry = customs.get(request.cid);
	if (!entry) return { closed: true };
	if (request.columns) entry.size = { columns: request.columns, rows: request.rows ?? entry.size.rows };
	const width = request.columns ?? entry.size.columns;
	switch (request.action) {
		case "open": {
			// The pi-tui instance extensions import (its keybindings manager is a module global).
			const piTui = nodeModule.createRequire(import.meta.url)(path.join(HERE, "pi-tui.cjs"));
			const keybindings = appKeybindings(piTui, request.keybindings);
			const done = (result) => {
				if (entry.closed) return;
				entry.closed = true;
				entry.resolve(result);
				note("component", { cid: request.cid, event: "done" });
				closeCustom(request.cid);
			};
			const theme = paletteTheme(request.palette);
			entry.theme = theme;
			if (!entry.passive || !globalThis.__piSidecar.theme) globalThis.__piSidecar.theme = theme; // what getSelectListTheme() & co. of pi-coding-agent style with
			const tui = customTui(request.cid, entry);
			let component;
			try {
				component = await entry.factory(tui, theme, keybindings, done);
			} catch (error) {
				// Upstream rejects custom()'s promise with the factory's error.
				if (!entry.closed) {
					entry.closed = true;
					entry.reject(error);
				}
				closeCustom(request.cid);
				return { closed: true };
			}
			if (entry.closed) return { closed: true };
			entry.component = component;
			if (entry.options?.overlay) {
				// Upstream's showExtensionCustom: overlayOptions (or a function of none), else the
				// component's own width; then onHandle gets the overlay's handle.
				const given = entry.options.overlayOptions;
				const resolved = given ? (typeof given === "function" ? given() : given) : component?.width ? { width: component.width } : undefined;
				const handle = tui.showOverlay(component, resolved);
				entry.options.onHandle?.(handle);
			} else if (!entry.passive) {
				setFocus(entry, component);
			}
			return renderCustom(entry, width);
		}
		case "input": {
			const target = entry.focus ?? entry.component;
			if (!entry.closed) target?.handleInput?.(request.data);
			return renderCustom(entry, width);
		}
		case "render":
			if (request.invalidate) {
				entry.component?.invalidate?.();
				for (const overlay of entry.overlays) if (overlay.component !== entry.component) overlay.component.invalidate?.();
			}
			return renderCustom(entry, width);
		case "close":
			closeCustom(request.cid);
			return { closed: true };
		default:
			throw new Error(`Unknown component action: ${request.action}`);
	}
}

const REGISTRY_ASYNC = new Set(["getApiKey", "getApiKeyAndHeaders", "getApiKeyForProvider", "refresh"]);
const COMMAND_ASYNC = ["waitForIdle", "newSession", "fork", "navigateTree", "switchSession", "reload"];

function createContext(ref) {
	const ctxCall = (name, args = []) => {
		assertGeneration(ref.g);
		return syncCall("ctx", { ctx: ref, name, args });
	};
	const ctx = {
		get ui() {
			assertGeneration(ref.g);
			return createUI(ref);
		},
		get mode() {
			assertGeneration(ref.g);
			return ref.mode;
		},
		get hasUI() {
			assertGeneration(ref.g);
			return ref.hasUI;
		},
		get cwd() {
			assertGeneration(ref.g);
			return ref.cwd;
		},
		get sessionManager() {
			assertGeneration(ref.g);
			return remoteObject(ref, "sm");
		},
		get modelRegistry() {
			assertGeneration(ref.g);
			return remoteObject(ref, "registry", REGISTRY_ASYNC);
		},
		get model() {
			return ctxCall("model");
		},
		get scopedModels() {
			return ctxCall("scopedModels");
		},
		get thinkingLevel() {
			return ctxCall("thinkingLevel");
		},
		get signal() {
			return ctxCall("signal") ?? undefined;
		},
		isIdle: () => ctxCall("isIdle"),
		isProjectTrusted: () => ctxCall("isProjectTrusted"),
		abort: () => ctxCall("abort"),
		hasPendingMessages: () => ctxCall("hasPendingMessages"),
		shutdown: () => ctxCall("shutdown"),
		getContextUsage: () => ctxCall("getContextUsage") ?? undefined,
		compact: (options) => ctxCall("compact", [options]),
		getSystemPrompt: () => ctxCall("getSystemPrompt"),
	};
	if (ref.k === "c") {
		ctx.getSystemPromptOptions = () => ctxCall("getSystemPromptOptions");
		for (const name of COMMAND_ASYNC) {
			ctx[name] = (...args) => {
				assertGeneration(ref.g);
				return asyncCall("ctx", { ctx: ref, name, args });
			};
		}
	}
	if (ref.k === "t") {
		ctx.toolCallId = ref.tc;
	}
	if (ref.o) {
		// withSession's ctx (the replaced session's): it can also send into that session.
		for (const name of ["sendMessage", "sendUserMessage", ...COMMAND_ASYNC, "getSystemPromptOptions"]) {
			ctx[name] = (...args) => asyncCall("ctx", { ctx: ref, name, args });
		}
	}
	return ctx;
}

// ---------------------------------------------------------------------------------------------
// Loading, as upstream's loader: jiti with the host modules aliased, the default export is the
// factory, factories are cached by path until a reload asks for fresh modules.

let jitiPromise;
const factoryCache = new Map();

function aliases() {
	const local = (name) => path.join(HERE, name);
	const dep = (specifier) => fileURLToPath(import.meta.resolve(specifier));
	const codingAgent = local("pi-coding-agent.mjs");
	const piAi = local("pi-ai-view.cjs");
	const lazy = (specifier) => {
		try {
			return dep(specifier);
		} catch {
			return undefined;
		}
	};
	const entries = {
		"@earendil-works/pi-coding-agent": codingAgent,
		"@earendil-works/pi-ai": piAi,
		"@earendil-works/pi-ai/compat": piAi,
		"@earendil-works/pi-ai/models": lazy("@earendil-works/pi-ai/models"),
		"@earendil-works/pi-ai/oauth": lazy("@earendil-works/pi-ai/oauth"),
		"@earendil-works/pi-ai/providers/all": lazy("@earendil-works/pi-ai/providers/all"),
		"@earendil-works/pi-agent-core": local("pi-agent-core.cjs"),
		"@earendil-works/pi-tui": local("pi-tui.cjs"),
		// TypeBox bundled into one module (build-typebox.mjs): its ~700 files load slowly.
		typebox: local("typebox.mjs"),
		"typebox/compile": local("typebox-compile.mjs"),
		"typebox/value": local("typebox-value.mjs"),
	};
	for (const [name, target] of Object.entries({ ...entries })) {
		if (name.startsWith("@earendil-works/")) entries[name.replace("@earendil-works/", "@mariozechner/")] = target;
		if (name.startsWith("typebox")) entries[`@sinclair/${name}`] = target;
	}
	for (const key of Object.keys(entries)) if (entries[key] === undefined) delete entries[key];
	return entries;
}

async function getJiti() {
	jitiPromise ??= import("jiti").then(({ createJiti }) =>
		createJiti(import.meta.url, { moduleCache: false, alias: aliases() }),
	);
	return jitiPromise;
}

async function loadFactory(file, fresh) {
	if (!fresh && factoryCache.has(file)) return factoryCache.get(file);
	const jiti = await getJiti();
	const module = await jiti.import(file, { default: true });
	if (typeof module !== "function") return undefined;
	factoryCache.set(file, module);
	return module;
}

async function load(request) {
	generation(request.gen);
	const ext = { id: request.ext, gen: request.gen, path: request.path, state: "loading" };
	extensions.set(ext.id, ext);
	if (request.fresh) factoryCache.clear();
	const factory = await loadFactory(request.path, request.fresh);
	if (!factory) {
		ext.state = "failed";
		return { value: null, invalid: `Extension does not export a valid factory function: ${request.path}` };
	}
	try {
		await factory(createAPI(ext));
	} catch (error) {
		ext.state = "failed";
		forgetExtension(ext.id);
		throw error;
	}
	ext.state = "active";
	return null;
}

function forgetExtension(extId) {
	for (const map of [handlers, tools, commands, busHandlers, streams]) {
		for (const [id, entry] of map) if (entry.ext.id === extId) map.delete(id);
	}
}

// ---------------------------------------------------------------------------------------------
// Python's requests.

const running = new Map(); // request id -> AbortController of a tool call (cancel aborts it)

async function handle(request) {
	switch (request.op) {
		case "ping":
			return { value: "pong" };
		case "load":
			return (await load(request)) ?? { value: null };
		case "call": {
			const handler = handlers.get(request.h);
			if (!handler) return { value: null };
			const event = request.event;
			const value = await handler.fn(event, request.ctx);
			const field = MUTABLE_FIELDS[event?.type];
			return field ? { value, patch: { [field]: event[field] } } : { value };
		}
		case "tool": {
			const tool = tools.get(`${request.ext}:${request.tool}`);
			if (!tool) throw new Error("This tool's extension is no longer loaded");
			const controller = new AbortController();
			running.set(request.id, controller);
			// The run's signal itself, as upstream passes it (so it is ctx.signal too, and its
			// listeners fire in the order they were added); a cancel aborts it from here.
			const signal = request.signal ?? controller.signal;
			if (request.signal) {
				const external = signal;
				controller.signal.addEventListener("abort", () => abortRemote(external), { once: true });
			}
			const onUpdate = (partial) => note("update", { id: request.id, partial });
			try {
				const ctx = request.ctx;
				const value = await tool.definition.execute(request.toolCallId, request.params, signal, onUpdate, ctx);
				return { value };
			} finally {
				running.delete(request.id);
			}
		}
		case "prepare": {
			const tool = tools.get(`${request.ext}:${request.tool}`);
			return { value: tool ? await tool.definition.prepareArguments(request.args) : request.args };
		}
		case "stream": {
			const entry = streams.get(`${request.ext}:${request.api}`);
			if (!entry) throw new Error(`No API provider registered for api: ${request.api}`);
			const options = { ...(request.options ?? {}) };
			if (request.signal) options.signal = request.signal;
			const events = await entry.fn(request.model, request.context, options);
			for await (const event of events) note("update", { id: request.id, partial: event });
			return { value: null };
		}
		case "cmd": {
			const command = commands.get(`${request.ext}:${request.cmd}`);
			if (!command) throw new Error("This command's extension is no longer loaded");
			await command.options.handler(request.args, request.ctx);
			return { value: null };
		}
		case "bus": {
			const subscription = busHandlers.get(request.sub);
			if (subscription) await subscription.fn(request.data);
			return { value: null };
		}
		case "fn": {
			const fn = functions.get(request.fn);
			if (!fn) throw new Error("Callback is no longer available");
			return { value: await fn(...(request.args ?? [])) };
		}
		case "component":
			return { value: await componentRequest(request) };
		case "forget": {
			for (const id of request.ext ?? []) {
				forgetExtension(id);
				extensions.delete(id);
			}
			return { value: null };
		}
		default:
			throw new Error(`Unknown request: ${request.op}`);
	}
}

function answer(id, promise) {
	promise.then(
		(envelope) => send({ t: "res", id, ...envelope, value: envelope.value ?? null }),
		(error) => send({ t: "res", id, error: error instanceof Error ? error.message : String(error) }),
	);
}

function dispatch(message) {
	switch (message.t) {
		case "req":
			answer(message.id, Promise.resolve().then(() => handle(message)));
			break;
		case "res": {
			const pending = waiting.get(message.id);
			if (!pending) break;
			waiting.delete(message.id);
			if (message.error !== undefined) pending.reject(new Error(message.error));
			else pending.resolve(message.value ?? undefined);
			break;
		}
		case "abort": {
			const controller = signals.get(message.sid);
			if (controller && !controller.signal.aborted) controller.abort();
			break;
		}
		case "cancel": {
			running.get(message.id)?.abort();
			break;
		}
		case "invalidate":
			// Python's default text names Python's methods; extensions here get upstream's.
			generation(message.gen).stale = String(message.message).startsWith("This extension ctx is stale")
				? STALE_MESSAGE
				: message.message;
			break;
		case "release":
			for (const id of message.fns ?? []) functions.delete(id);
			for (const id of message.sids ?? []) signals.delete(id);
			break;
		default:
			writeErr(`pi extension host: unknown message ${message.t}\n`);
	}
}

let inputBuffer = "";
process.stdin.setEncoding("utf8");
const DEBUG = Boolean(process.env.PI_SIDECAR_DEBUG);
process.stdin.on("data", (chunk) => {
	if (DEBUG) writeErr(`sidecar got ${chunk.length} chars\n`);
	inputBuffer += chunk;
	let newline = inputBuffer.indexOf("\n");
	while (newline !== -1) {
		const line = inputBuffer.slice(0, newline);
		inputBuffer = inputBuffer.slice(newline + 1);
		if (line) {
			try {
				dispatch(line.includes('"x":1') ? JSON.parse(line, revive) : JSON.parse(line));
			} catch (error) {
				writeErr(`pi extension host: bad message: ${error?.message ?? error}\n`);
			}
		}
		newline = inputBuffer.indexOf("\n");
	}
});
process.stdin.on("end", () => process.exit(0));
process.on("unhandledRejection", (reason) => {
	writeErr(`pi extension host: unhandled rejection: ${reason instanceof Error ? reason.stack : String(reason)}\n`);
});
process.on("uncaughtException", (error) => {
	writeErr(`pi extension host: uncaught exception: ${error instanceof Error ? error.stack : String(error)}\n`);
});

send({ t: "hello", protocol: PROTOCOL_VERSION, node: process.version });
