// Where pi-tui puts an overlay (upstream's TUI.resolveOverlayLayout, pi-tui 1.6): the width and
// maxHeight from the options (numbers or "N%" of the terminal), then the row and column from
// row/col (absolute or "N%" of the free space) or the anchor (default "center"), moved by
// offsetX/offsetY and clamped inside the terminal less its margins. Rows count from the top of
// the terminal.

function size(value, reference) {
	if (value === undefined) return undefined;
	if (typeof value === "number") return value;
	const match = String(value).match(/^(\d+(?:\.\d+)?)%$/);
	return match ? Math.floor((reference * parseFloat(match[1])) / 100) : undefined;
}

function anchorRow(anchor, height, availHeight, marginTop) {
	if (anchor.startsWith("top-")) return marginTop;
	if (anchor.startsWith("bottom-")) return marginTop + availHeight - height;
	return marginTop + Math.floor((availHeight - height) / 2);
}

function anchorCol(anchor, width, availWidth, marginLeft) {
	if (anchor === "top-left" || anchor === "left-center" || anchor === "bottom-left") return marginLeft;
	if (anchor === "top-right" || anchor === "right-center" || anchor === "bottom-right") return marginLeft + availWidth - width;
	return marginLeft + Math.floor((availWidth - width) / 2);
}

function place(value, free, margin, fallback) {
	if (value === undefined) return fallback();
	if (typeof value !== "string") return value;
	const match = value.match(/^(\d+(?:\.\d+)?)%$/);
	return match ? margin + Math.floor(Math.max(0, free) * (parseFloat(match[1]) / 100)) : fallback("center");
}

/** {width, row, col, maxHeight} of an overlay `height` lines tall in a columns x rows terminal. */
export function overlayLayout(options, height, columns, rows) {
	const opt = options ?? {};
	const m = typeof opt.margin === "number" ? { top: opt.margin, right: opt.margin, bottom: opt.margin, left: opt.margin } : (opt.margin ?? {});
	const top = Math.max(0, m.top ?? 0);
	const right = Math.max(0, m.right ?? 0);
	const bottom = Math.max(0, m.bottom ?? 0);
	const left = Math.max(0, m.left ?? 0);
	const availWidth = Math.max(1, columns - left - right);
	const availHeight = Math.max(1, rows - top - bottom);
	let width = size(opt.width, columns) ?? Math.min(80, availWidth);
	if (opt.minWidth !== undefined) width = Math.max(width, opt.minWidth);
	width = Math.max(1, Math.min(width, availWidth));
	let maxHeight = size(opt.maxHeight, rows);
	if (maxHeight !== undefined) maxHeight = Math.max(1, Math.min(maxHeight, availHeight));
	const shown = maxHeight !== undefined ? Math.min(height, maxHeight) : height;
	const anchor = opt.anchor ?? "center";
	let row = place(opt.row, availHeight - shown, top, (a = anchor) => anchorRow(a, shown, availHeight, top));
	let col = place(opt.col, availWidth - width, left, (a = anchor) => anchorCol(a, width, availWidth, left));
	if (opt.offsetY !== undefined) row += opt.offsetY;
	if (opt.offsetX !== undefined) col += opt.offsetX;
	row = Math.max(top, Math.min(row, rows - bottom - shown));
	col = Math.max(left, Math.min(col, columns - right - width));
	return { width, row, col, maxHeight };
}
