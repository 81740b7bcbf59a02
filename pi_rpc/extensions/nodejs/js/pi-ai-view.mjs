// What `@earendil-works/pi-ai` resolves to for extensions (as upstream maps it): pi-ai's compat
// entry point plus TypeBox's Type and a StringEnum helper built with TypeBox.
import { Type } from "./typebox.mjs";

export * from "@earendil-works/pi-ai/compat";
export { Type };

export function StringEnum(values, options) {
	return Type.Unsafe({
		type: "string",
		enum: values,
		...(options?.description && { description: options.description }),
		...(options?.default && { default: options.default }),
	});
}
