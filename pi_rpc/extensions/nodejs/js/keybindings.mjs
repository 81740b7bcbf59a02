// The keybindings a ctx.ui.custom factory gets, as upstream's interactive mode hands them over:
// pi-tui's tui.* ids with pi-coding-agent's platform defaults, plus its app.* ids
// (docs/keybindings.md), the user's keybindings.json applied (legacy names migrated, as
// upstream's KeybindingsManager.loadFromFile). The manager also becomes pi-tui's global one, so
// components that call getKeybindings() see the same ids.

const win32 = process.platform === "win32";
const windowsKeys = win32 || (process.platform === "linux" && Boolean(process.env.WSL_DISTRO_NAME || process.env.WSL_INTEROP));
const darwin = process.platform === "darwin";

const APP = {
	"app.interrupt": ["escape", "Cancel or abort"],
	"app.clear": ["ctrl+c", "Clear editor"],
	"app.exit": ["ctrl+d", "Exit when editor is empty"],
	"app.suspend": [win32 ? [] : "ctrl+z", "Suspend to background"],
	"app.thinking.cycle": ["shift+tab", "Cycle thinking level"],
	"app.thinking.save": ["ctrl+s", "Save thinking level"],
	"app.model.cycleForward": ["ctrl+p", "Cycle to next model"],
	"app.model.cycleBackward": [windowsKeys ? "alt+p" : "shift+ctrl+p", "Cycle to previous model"],
	"app.model.select": ["ctrl+l", "Open model selector"],
	"app.tools.expand": ["ctrl+o", "Toggle tool output"],
	"app.thinking.toggle": ["ctrl+t", "Toggle thinking blocks"],
	"app.session.toggleNamedFilter": ["ctrl+n", "Toggle named session filter"],
	"app.editor.external": ["ctrl+g", "Open external editor"],
	"app.message.copy": ["ctrl+x", "Copy selection or last assistant message"],
	"app.message.followUp": [windowsKeys ? "ctrl+q" : "alt+enter", "Queue follow-up message"],
	"app.message.dequeue": [windowsKeys ? "alt+q" : "alt+up", "Restore queued messages"],
	"app.clipboard.pasteImage": [windowsKeys ? ["alt+v", "ctrl+v"] : "ctrl+v", "Paste files on macOS, images, or text from clipboard"],
	"app.session.new": [[], "Start a new session"],
	"app.session.tree": [[], "Open session tree"],
	"app.session.fork": [[], "Fork current session"],
	"app.session.resume": [[], "Resume a session"],
	"app.tree.foldOrUp": [darwin ? ["alt+left", "ctrl+left"] : ["ctrl+left", "alt+left"], "Fold tree branch or move up"],
	"app.tree.unfoldOrDown": [darwin ? ["alt+right", "ctrl+right"] : ["ctrl+right", "alt+right"], "Unfold tree branch or move down"],
	"app.tree.editLabel": ["shift+l", "Edit tree label"],
	"app.tree.toggleLabelTimestamp": ["shift+t", "Toggle tree label timestamps"],
	"app.session.togglePath": ["ctrl+p", "Toggle session path display"],
	"app.session.toggleSort": ["ctrl+s", "Toggle session sort mode"],
	"app.session.rename": ["ctrl+r", "Rename session"],
	"app.session.delete": ["ctrl+d", "Delete session"],
	"app.session.deleteNoninvasive": ["ctrl+backspace", "Delete session when query is empty"],
	"app.models.save": ["ctrl+s", "Save model selection"],
	"app.models.enableAll": ["ctrl+a", "Enable all models"],
	"app.models.clearAll": ["ctrl+x", "Clear all models"],
	"app.models.toggleProvider": ["ctrl+p", "Toggle all models for provider"],
	"app.models.reorderUp": ["alt+up", "Move model up in order"],
	"app.models.reorderDown": ["alt+down", "Move model down in order"],
	"app.tree.filter.default": ["ctrl+d", "Tree filter: default view"],
	"app.tree.filter.noTools": ["ctrl+t", "Tree filter: hide tool results"],
	"app.tree.filter.userOnly": ["ctrl+u", "Tree filter: user messages only"],
	"app.tree.filter.labeledOnly": ["ctrl+l", "Tree filter: labeled entries only"],
	"app.tree.filter.all": ["ctrl+a", "Tree filter: show all entries"],
	"app.tree.filter.cycleForward": ["ctrl+o", "Tree filter: cycle forward"],
	"app.tree.filter.cycleBackward": ["shift+ctrl+o", "Tree filter: cycle backward"],
};

// Upstream's pre-namespace names in keybindings.json -> today's ids.
const LEGACY = {
	cursorUp: "tui.editor.cursorUp", cursorDown: "tui.editor.cursorDown", cursorLeft: "tui.editor.cursorLeft",
	cursorRight: "tui.editor.cursorRight", cursorWordLeft: "tui.editor.cursorWordLeft",
	cursorWordRight: "tui.editor.cursorWordRight", cursorLineStart: "tui.editor.cursorLineStart",
	cursorLineEnd: "tui.editor.cursorLineEnd", jumpForward: "tui.editor.jumpForward",
	jumpBackward: "tui.editor.jumpBackward", pageUp: "tui.editor.pageUp", pageDown: "tui.editor.pageDown",
	deleteCharBackward: "tui.editor.deleteCharBackward", deleteCharForward: "tui.editor.deleteCharForward",
	deleteWordBackward: "tui.editor.deleteWordBackward", deleteWordForward: "tui.editor.deleteWordForward",
	deleteToLineStart: "tui.editor.deleteToLineStart", deleteToLineEnd: "tui.editor.deleteToLineEnd",
	yank: "tui.editor.yank", yankPop: "tui.editor.yankPop", undo: "tui.editor.undo", newLine: "tui.input.newLine",
	submit: "tui.input.submit", tab: "tui.input.tab", copy: "tui.input.copy", selectUp: "tui.select.up",
	selectDown: "tui.select.down", selectPageUp: "tui.select.pageUp", selectPageDown: "tui.select.pageDown",
	selectConfirm: "tui.select.confirm", selectCancel: "tui.select.cancel", interrupt: "app.interrupt",
	clear: "app.clear", exit: "app.exit", suspend: "app.suspend", cycleThinkingLevel: "app.thinking.cycle",
	cycleModelForward: "app.model.cycleForward", cycleModelBackward: "app.model.cycleBackward",
	selectModel: "app.model.select", expandTools: "app.tools.expand", toggleThinking: "app.thinking.toggle",
	toggleSessionNamedFilter: "app.session.toggleNamedFilter", externalEditor: "app.editor.external",
	followUp: "app.message.followUp", dequeue: "app.message.dequeue", pasteImage: "app.clipboard.pasteImage",
	newSession: "app.session.new", tree: "app.session.tree", fork: "app.session.fork", resume: "app.session.resume",
	treeFoldOrUp: "app.tree.foldOrUp", treeUnfoldOrDown: "app.tree.unfoldOrDown", treeEditLabel: "app.tree.editLabel",
	treeToggleLabelTimestamp: "app.tree.toggleLabelTimestamp", toggleSessionPath: "app.session.togglePath",
	toggleSessionSort: "app.session.toggleSort", renameSession: "app.session.rename",
	deleteSession: "app.session.delete", deleteSessionNoninvasive: "app.session.deleteNoninvasive",
};

const validKeys = (value) => typeof value === "string" || (Array.isArray(value) && value.every((key) => typeof key === "string"));

/** The user's keybindings.json object, cleaned as upstream cleans it. */
export function userBindings(raw) {
	const out = {};
	for (const [key, value] of Object.entries(raw ?? {})) {
		if (key === "$schema" || !validKeys(value)) continue;
		const id = LEGACY[key] ?? key;
		if (id !== key && Object.hasOwn(raw, id)) continue; // the new name wins
		out[id] = value;
	}
	return out;
}

/** Upstream's app keybindings manager over pi-tui (the package extensions import). */
export function appKeybindings(piTui, raw) {
	const { TUI_KEYBINDINGS, KeybindingsManager, setKeybindings } = piTui;
	const definitions = {
		...TUI_KEYBINDINGS,
		"tui.editor.undo": { ...TUI_KEYBINDINGS["tui.editor.undo"], defaultKeys: win32 ? "ctrl+z" : windowsKeys ? "alt+z" : "ctrl+-" },
		"tui.altScreen.previousPrompt": {
			...TUI_KEYBINDINGS["tui.altScreen.previousPrompt"],
			defaultKeys: windowsKeys ? "ctrl+up" : ["ctrl+shift+up", "ctrl+up"],
		},
		"tui.altScreen.nextPrompt": {
			...TUI_KEYBINDINGS["tui.altScreen.nextPrompt"],
			defaultKeys: windowsKeys ? "ctrl+down" : ["ctrl+shift+down", "ctrl+down"],
		},
		"tui.altScreen.search": { ...TUI_KEYBINDINGS["tui.altScreen.search"], defaultKeys: windowsKeys ? "ctrl+f" : "ctrl+shift+f" },
	};
	for (const [id, [defaultKeys, description]] of Object.entries(APP)) definitions[id] = { defaultKeys, description };
	const manager = new KeybindingsManager(definitions, userBindings(raw));
	manager.getEffectiveConfig = () => manager.getResolvedBindings();
	setKeybindings(manager);
	return manager;
}
