#!/usr/bin/env node
// Generate types/protocol.d.ts from the JSON Schema files in protocol/schema/*.json (produced from the
// server's pydantic models). No dependencies; handles the JSON Schema subset pydantic v2 emits:
// $defs/$ref, const, enum, anyOf/oneOf/allOf, type arrays, items/prefixItems, properties/required,
// additionalProperties, descriptions (-> JSDoc).
//
//   node clients/typescript/scripts/gen-types.mjs [--schema-dir DIR] [--out FILE] [--check]
//
// --check exits 1 when the output file is out of date (for CI), without writing it.
// A root schema is named by its file stem (minus ".schema") in PascalCase minus a plural "s"
// (commands.schema.json -> Command, events -> Event, responses -> Response); its title becomes JSDoc. Optional properties whose default is null drop the null branch: on the
// wire an absent value is absent, never null.

import { readFileSync, readdirSync, writeFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve, basename } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "../../..");

function parseArgs(argv) {
  const o = { schemaDir: join(REPO, "protocol/schema"), out: join(HERE, "../types/protocol.d.ts"), check: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--schema-dir") o.schemaDir = resolve(argv[++i]);
    else if (argv[i] === "--out") o.out = resolve(argv[++i]);
    else if (argv[i] === "--check") o.check = true;
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  return o;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const pascal = (s) => s.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join("");
const refName = (ref) => pascal(ref.split("/").pop());

function jsdoc(desc, indent) {
  if (!desc) return "";
  const lines = String(desc).replace(/\*\//g, "*\\/").split("\n");
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`).join("\n")}\n${indent} */\n`;
}

function wrap(t) {
  return /[|&]/.test(t) && !/^\(.*\)$/.test(t) ? `(${t})` : t;
}

function union(types) {
  const uniq = [...new Set(types)];
  if (uniq.includes("unknown")) return "unknown";
  return uniq.length ? uniq.join(" | ") : "never";
}

/** TypeScript type expression for a schema node. */
export function tsType(s, indent = "") {
  if (s === true || s == null) return "unknown";
  if (s === false) return "never";
  if (s.$ref) return refName(s.$ref);
  if ("const" in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return union(s.enum.map((v) => JSON.stringify(v)));
  if (s.anyOf || s.oneOf) return union((s.anyOf || s.oneOf).map((x) => tsType(x, indent)));
  if (s.allOf) return s.allOf.length === 1 ? tsType(s.allOf[0], indent) : s.allOf.map((x) => wrap(tsType(x, indent))).join(" & ");
  const t = s.type;
  if (Array.isArray(t)) return union(t.map((x) => tsType({ ...s, type: x }, indent)));
  switch (t) {
    case "string": return "string";
    case "integer":
    case "number": return "number";
    case "boolean": return "boolean";
    case "null": return "null";
    case "array": {
      if (Array.isArray(s.prefixItems)) {
        const items = s.prefixItems.map((x) => tsType(x, indent));
        if (s.items && s.items !== false) items.push(`...${wrap(tsType(s.items, indent))}[]`);
        return `[${items.join(", ")}]`;
      }
      return `${wrap(tsType(s.items, indent))}[]`;
    }
    case "object":
      return objectBody(s, indent);
    default:
      if (s.properties) return objectBody(s, indent);
      return "unknown";
  }
}

function propType(name, p, required) {
  let schema = p;
  if (!required && p && p.default === null && (p.anyOf || p.oneOf)) {
    const alts = (p.anyOf || p.oneOf).filter((x) => !(x && x.type === "null"));
    schema = alts.length === 1 ? { ...alts[0], description: p.description } : { ...p, anyOf: alts, oneOf: undefined };
  }
  return tsType(schema, "");
}

function objectBody(s, indent) {
  const props = s.properties || {};
  const req = new Set(s.required || []);
  const inner = indent + "  ";
  const lines = [];
  for (const [name, p] of Object.entries(props)) {
    const key = IDENT.test(name) ? name : JSON.stringify(name);
    lines.push(jsdoc(p && p.description, inner) + `${inner}${key}${req.has(name) ? "" : "?"}: ${propTypeIndented(name, p, req.has(name), inner)};`);
  }
  const ap = s.additionalProperties;
  if (ap && ap !== false) lines.push(`${inner}[key: string]: ${ap === true ? "unknown" : tsType(ap, inner)};`);
  else if (!Object.keys(props).length && ap !== false) lines.push(`${inner}[key: string]: unknown;`);
  if (!lines.length) return "Record<string, never>";
  return `{\n${lines.join("\n")}\n${indent}}`;
}

function propTypeIndented(name, p, required, indent) {
  const t = propType(name, p, required);
  return t.replace(/\n/g, "\n" + indent.slice(2));
}

/** Generate the .d.ts text for a set of {name, schema} roots. */
export function generate(files) {
  const out = [
    "// GENERATED by clients/typescript/scripts/gen-types.mjs from protocol/schema/*.json. Do not edit.",
    "// Regenerate: node clients/typescript/scripts/gen-types.mjs",
    "",
  ];
  const seen = new Map();
  const emit = (name, schema, origin) => {
    const text = declaration(name, schema);
    if (seen.has(name)) {
      if (seen.get(name) !== text) out.push(`// note: ${name} also defined differently in ${origin}; first definition kept`);
      return;
    }
    seen.set(name, text);
    out.push(text, "");
  };
  for (const { stem, schema } of files) {
    for (const [name, def] of Object.entries(schema.$defs || schema.definitions || {})) emit(pascal(name), def, stem);
    const { $defs, definitions, ...root } = schema;
    const rootName = pascal(stem.replace(/\.schema$/, "")).replace(/s$/, "");
    if (root.title) root.description = root.description ? `${root.title}: ${root.description}` : root.title;
    if (Object.keys(root).some((k) => !["$schema", "$id", "title", "description"].includes(k))) emit(rootName, root, stem);
  }
  return out.join("\n").replace(/\n+$/, "\n");
}

function declaration(name, schema) {
  const doc = jsdoc(schema.description, "");
  const isObject = (schema.type === "object" || (!schema.type && schema.properties)) && !schema.anyOf && !schema.oneOf && !schema.allOf;
  if (isObject) return `${doc}export interface ${name} ${objectBody(schema, "")}`;
  return `${doc}export type ${name} = ${tsType(schema, "")};`;
}

function main() {
  const o = parseArgs(process.argv.slice(2));
  if (!existsSync(o.schemaDir)) {
    console.error(`no schema dir ${o.schemaDir}`);
    process.exit(2);
  }
  const names = readdirSync(o.schemaDir).filter((f) => f.endsWith(".json")).sort();
  if (!names.length) {
    console.error(`no *.json schema files in ${o.schemaDir}; keeping ${o.out} as is`);
    process.exit(2);
  }
  const files = names.map((f) => ({ stem: basename(f, ".json"), schema: JSON.parse(readFileSync(join(o.schemaDir, f), "utf8")) }));
  const text = generate(files);
  if (o.check) {
    const cur = existsSync(o.out) ? readFileSync(o.out, "utf8") : "";
    if (cur !== text) {
      console.error(`${o.out} is out of date; run node clients/typescript/scripts/gen-types.mjs`);
      process.exit(1);
    }
    return;
  }
  mkdirSync(dirname(o.out), { recursive: true });
  writeFileSync(o.out, text);
  console.log(`wrote ${o.out} from ${names.length} schema file(s)`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
