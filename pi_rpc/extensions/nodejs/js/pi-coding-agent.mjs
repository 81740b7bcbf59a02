// What `@earendil-works/pi-coding-agent` resolves to for extensions run by pi_rpc: the values
// extensions import at run time (types need nothing). Helpers whose behaviour pi_rpc already
// implements in Python (truncation, frontmatter, transcript conversion, the built-in tools) call
// it through the sidecar, so a TypeScript extension sees exactly what a Python one sees.
import * as os from "node:os";
import * as path from "node:path";

const host = () => globalThis.__piSidecar;
const lib = (name, ...args) => host().syncCall("lib", { name, args });

export const VERSION = "1.6.0";
export const CONFIG_DIR_NAME = ".pi";
export const DEFAULT_MAX_LINES = 2000;
export const DEFAULT_MAX_BYTES = 50 * 1024;
export const GREP_MAX_LINE_LENGTH = 500;

export function getAgentDir() {
	return process.env.PI_SIDECAR_AGENT_DIR || path.join(os.homedir(), CONFIG_DIR_NAME, "agent");
}

export function formatSize(bytes) {
	if (bytes < 1024) return `${bytes}B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
	return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

export const truncateHead = (content, options = {}) => lib("truncateHead", content, options);
export const truncateTail = (content, options = {}) => lib("truncateTail", content, options);
export function truncateLine(line, maxChars = GREP_MAX_LINE_LENGTH) {
	if (line.length <= maxChars) return { text: line, wasTruncated: false };
	return { text: `${line.slice(0, maxChars)}... [truncated]`, wasTruncated: true };
}
export const parseFrontmatter = (content) => lib("parseFrontmatter", content);
export const stripFrontmatter = (content) => lib("parseFrontmatter", content).body;
export const convertToLlm = (messages) => lib("convertToLlm", messages);
export const serializeConversation = (messages) => lib("serializeConversation", messages);

export function formatReadLineRange(offset, limit) {
	if (offset === undefined && limit === undefined) return "";
	const start = offset ?? 1;
	return limit === undefined ? `:${start}` : `:${start}-${start + limit - 1}`;
}

export function defineTool(tool) {
	return tool;
}

export function isToolCallEventType(toolName, event) {
	return event?.toolName === toolName;
}
const resultOf = (name) => (result) => result?.toolName === name;
export const isBashToolResult = resultOf("bash");
export const isReadToolResult = resultOf("read");
export const isEditToolResult = resultOf("edit");
export const isWriteToolResult = resultOf("write");
export const isGrepToolResult = resultOf("grep");
export const isFindToolResult = resultOf("find");
export const isLsToolResult = resultOf("ls");

// One queue per file: mutations of the same file run one after another (upstream's contract).
const queues = new Map();
export async function withFileMutationQueue(filePath, fn) {
	const key = path.resolve(filePath);
	const previous = queues.get(key) ?? Promise.resolve();
	let release;
	const current = new Promise((resolve) => {
		release = resolve;
	});
	const chained = previous.then(() => current);
	queues.set(key, chained);
	await previous;
	try {
		return await fn();
	} finally {
		release();
		if (queues.get(key) === chained) queues.delete(key);
	}
}

// The built-in tools, run by pi_rpc's own implementations in Python.
function builtinDefinition(name, cwd) {
	const info = lib("builtinTool", name, cwd ?? process.cwd());
	return {
		...info,
		async execute(toolCallId, params, signal, onUpdate) {
			return host().asyncCall("builtin", { name, cwd: cwd ?? process.cwd(), toolCallId, params, signal });
		},
	};
}
export const createBashToolDefinition = (cwd) => builtinDefinition("bash", cwd);
export const createReadToolDefinition = (cwd) => builtinDefinition("read", cwd);
export const createEditToolDefinition = (cwd) => builtinDefinition("edit", cwd);
export const createWriteToolDefinition = (cwd) => builtinDefinition("write", cwd);
export const createGrepToolDefinition = (cwd) => builtinDefinition("grep", cwd);
export const createFindToolDefinition = (cwd) => builtinDefinition("find", cwd);
export const createLsToolDefinition = (cwd) => builtinDefinition("ls", cwd);
export const createBashTool = createBashToolDefinition;
export const createReadTool = createReadToolDefinition;
export const createEditTool = createEditToolDefinition;
export const createWriteTool = createWriteToolDefinition;
export const createGrepTool = createGrepToolDefinition;
export const createFindTool = createFindToolDefinition;
export const createLsTool = createLsToolDefinition;

// Terminal-UI building blocks: accepted so extensions that use them load; pi_rpc's RPC, print,
// JSON and ACP modes render no components.
class Inert {
	constructor(...args) {
		this.args = args;
	}
	render() {
		return [];
	}
	invalidate() {}
	handleInput() {}
}
export class CustomEditor extends Inert {}
export class DynamicBorder extends Inert {}
export class BorderedLoader extends Inert {
	constructor(...args) {
		super(...args);
		this.signal = new AbortController().signal;
		this.onAbort = undefined;
	}
}
const plainTheme = new Proxy(
	{},
	{
		get: () => (...args) => (typeof args[args.length - 1] === "string" ? args[args.length - 1] : args[0]),
	},
);
// Upstream's component themes over the theme of the custom component being drawn (the sidecar
// sets it before running a ctx.ui.custom factory); plain text where nothing is drawn.
const active = () => host()?.theme ?? plainTheme;
export function getMarkdownTheme() {
	const theme = active();
	const fg = (role) => (text) => theme.fg(role, text);
	return {
		heading: fg("mdHeading"),
		link: fg("mdLink"),
		linkUrl: fg("mdLinkUrl"),
		code: fg("mdCode"),
		codeBlock: fg("mdCodeBlock"),
		codeBlockBorder: fg("mdCodeBlockBorder"),
		quote: fg("mdQuote"),
		quoteBorder: fg("mdQuoteBorder"),
		hr: fg("mdHr"),
		listBullet: fg("mdListBullet"),
		bold: (text) => theme.bold(text),
		italic: (text) => theme.italic(text),
		underline: (text) => theme.underline(text),
		strikethrough: (text) => theme.strikethrough(text),
	};
}
export function getSelectListTheme() {
	const theme = active();
	return {
		selectedPrefix: (text) => theme.fg("accent", text),
		selectedText: (text) => theme.fg("accent", text),
		description: (text) => theme.fg("muted", text),
		scrollInfo: (text) => theme.fg("muted", text),
		noMatch: (text) => theme.fg("muted", text),
	};
}
export function getSettingsListTheme() {
	const theme = active();
	return {
		label: (text, selected) => (selected ? theme.fg("accent", text) : text),
		value: (text, selected) => (selected ? theme.fg("accent", text) : theme.fg("muted", text)),
		description: (text) => theme.fg("dim", text),
		cursor: theme.fg("accent", "→ "),
		hint: (text) => theme.fg("dim", text),
	};
}
export function keyHint(_key, description) {
	return description ?? "";
}
