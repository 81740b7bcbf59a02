// connect(): the Node client of a running `pi --mode rpc --listen` server (Unix socket, TCP,
// WebSocket), attach/detach, and reconnect with catch-up. Spawns the Python server
// (PI_TS_TEST_PYTHON). The WebSocket test needs a Node with a global WebSocket (22+): on an older
// Node it is skipped (tests/clients/test_typescript_client.py runs this file on Node >= 22 too).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";

import { connect } from "../src/index.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "../../..");
const PYTHON = process.env.PI_TS_TEST_PYTHON || "python3";
const MISSING = new Set((process.env.PI_TS_TEST_MISSING || "").split(",").filter(Boolean));
const todo = MISSING.has("listen") || MISSING.has("beyond") ? { todo: "server feature missing: listen" } : {};

async function startServer(extra = []) {
  const base = mkdtempSync(join(tmpdir(), "pi-ts-listen-"));
  for (const d of ["agent", "cwd", "home"]) mkdirSync(join(base, d));
  const words = Array.from({ length: 80 }, (_, i) => `w${i}`).join(" ");
  writeFileSync(join(base, "script.json"), JSON.stringify([
    ...Array(3).fill({ match: "slow", text: words, delayMs: 10, chunkChars: 4 }),
    ...Array(3).fill({ match: "quick", text: "done" }),
  ]));
  const env = {
    PATH: process.env.PATH, HOME: join(base, "home"), PI_CODING_AGENT_DIR: join(base, "agent"), PI_OFFLINE: "1",
    PI_FAUX_SCRIPT: join(base, "script.json"), LANG: "C.UTF-8",
    PYTHONPATH: [REPO, process.env.PYTHONPATH].filter(Boolean).join(":"),
  };
  const server = spawn(PYTHON, ["-m", "pi_rpc", "--mode", "rpc", "--listen", `unix:${base}/pi.sock`, "--listen", "tcp:127.0.0.1:0", ...extra.flatMap((a) => ["--listen", a])],
    { cwd: join(base, "cwd"), env, stdio: ["ignore", "ignore", "pipe"] });
  const info = await new Promise((res, rej) => {
    let err = "";
    server.stderr.on("data", (c) => {
      err += c;
      const line = err.split("\n").find((l) => l.startsWith('{"listening"'));
      if (line) res(JSON.parse(line));
    });
    server.once("exit", (code) => rej(new Error(`server exited ${code}: ${err}`)));
  });
  return { server, info, token: readFileSync(info.tokenFile, "utf8").trim() };
}

test("connect over a Unix socket and TCP, attach, detach, reconnect with catch-up", todo, async () => {
  const { server, info, token } = await startServer();
  try {
    const [unix, tcp] = info.listening;
    const a = await connect(unix);
    assert.equal((await a.getState()).isStreaming, false);
    const chat = await a.openSession();
    const b = await connect(tcp, { token, reconnect: true });
    assert.deepEqual(await b.attach(chat.handle), { replayed: 0, complete: true });
    const watcher = await connect(unix);
    await watcher.setEventOptions({ seq: true });
    await watcher.attach(chat.handle);
    const seen = watcher.events({ handle: chat.handle });
    const stream = b.events({ handle: chat.handle });
    await chat.prompt("slow please");
    const got = [];
    while (got.filter((r) => r.type === "message_update").length < 5) got.push(await stream.next(20_000));
    // Drop b's connection mid-run: it reconnects and catches up.
    b._dropForTest();
    while (got.at(-1).type !== "agent_settled") got.push(await stream.next(30_000));
    const full = [];
    while (full.at(-1)?.type !== "agent_settled") full.push(await seen.next(30_000));
    assert.deepEqual(got.map((r) => r.seq), full.map((r) => r.seq));
    assert.deepEqual(b.reconnects.map((r) => r.handle).sort(), [chat.handle, "default"].sort());
    assert.ok(b.reconnects.every((r) => r.complete));
    await b.detach(chat.handle);
    const listed = Object.fromEntries((await a.listOpenSessions()).map((s) => [s.handle, s.attached]));
    assert.equal(listed[chat.handle], 2);
    for (const c of [a, b, watcher]) await c.close();
  } finally {
    server.kill("SIGTERM");
  }
});

const noWebSocket = typeof globalThis.WebSocket !== "function" ? { skip: "this Node has no global WebSocket (Node 22+)" } : {};

test("connect over WebSocket: the token as first message, a run, attach, reconnect with catch-up", { ...todo, ...noWebSocket }, async () => {
  const { server, info, token } = await startServer(["ws://127.0.0.1:0/pi"]);
  try {
    const [unix, , ws] = info.listening;
    assert.match(ws, /^ws:\/\/127\.0\.0\.1:\d+\/pi$/);
    // Without the token nothing is served; a wrong token is refused and the connection closed.
    await assert.rejects(connect(ws, { token: "not-the-token" }), (err) => err.response?.command === "authenticate" && /wrong token/.test(err.message));
    const a = await connect(ws, { token });
    assert.deepEqual((await a.getProtocolInfo()).transports, ["unix", "tcp", "ws"]);
    const chat = await a.openSession();
    const result = await chat.promptAndWait("quick one", { timeoutMs: 30_000 });
    assert.equal(result.events.at(-1).type, "agent_settled");
    assert.equal(await chat.getLastAssistantText(), "done");
    const b = await connect(ws, { token, reconnect: true });
    assert.deepEqual(await b.attach(chat.handle), { replayed: 0, complete: true });
    const watcher = await connect(unix);
    await watcher.setEventOptions({ seq: true });
    await watcher.attach(chat.handle);
    const seen = watcher.events({ handle: chat.handle });
    const stream = b.events({ handle: chat.handle });
    await chat.prompt("slow please");
    const got = [];
    while (got.filter((r) => r.type === "message_update").length < 5) got.push(await stream.next(20_000));
    b._dropForTest(); // the WebSocket closes mid-run: b reconnects and catches up
    while (got.at(-1).type !== "agent_settled") got.push(await stream.next(30_000));
    const full = [];
    while (full.at(-1)?.type !== "agent_settled") full.push(await seen.next(30_000));
    assert.deepEqual(got.map((r) => r.seq), full.map((r) => r.seq));
    assert.ok(b.reconnects.length === 2 && b.reconnects.every((r) => r.complete));
    const listed = Object.fromEntries((await a.listOpenSessions()).map((s) => [s.handle, s.attached]));
    assert.equal(listed[chat.handle], 3);
    for (const c of [a, b, watcher]) await c.close();
  } finally {
    server.kill("SIGTERM");
  }
});
