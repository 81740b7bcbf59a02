// Tests for the Node client: `node --test clients/typescript/test/`.
// Real-server tests spawn the command in PI_TS_TEST_CMD (JSON argv; default: python -m pi_rpc --mode rpc)
// against a scripted model (protocol/conformance/scripted_llm.py). PI_TS_TEST_MISSING (comma list of
// server features, e.g. "runs,bash"; "beyond" = the protocol beyond upstream 1.6, which upstream lacks;
// "handles" = many sessions in one process, open_session and the handle field)
// turns the tests needing them into todo tests.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

import {
  PiRpcClient, LineSplitter, encodeRecord, COMMAND_TYPES, BEYOND_UPSTREAM_COMMAND_TYPES, RpcCommandError, RpcProcessExited,
  RpcTimeoutError, EventsLost, SeqTracker, SessionHandle, SESSION_METHODS, DEFAULT_HANDLE,
} from "../src/index.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "../../..");
const PYTHON = process.env.PI_TS_TEST_PYTHON || "python3";
const STUB = join(REPO, "tests/clients/stub_rpc_server.py");
const LLM = join(REPO, "protocol/conformance/scripted_llm.py");
const CMD = process.env.PI_TS_TEST_CMD ? JSON.parse(process.env.PI_TS_TEST_CMD) : [PYTHON, "-m", "pi_rpc", "--mode", "rpc"];
const MISSING = new Set((process.env.PI_TS_TEST_MISSING || "").split(",").filter(Boolean));
const LS = "\u2028", PS = "\u2029";
const TEN_MB = 10 * 1024 * 1024;

const needs = (...features) => {
  const missing = features.filter((f) => MISSING.has(f));
  return missing.length ? { todo: `server feature missing: ${missing.join(", ")}` } : {};
};

/** Start a scripted model + agent dir, return {client, cleanup}. */
async function startReal(script = [], clientOpts = {}, extraArgs = []) {
  const base = mkdtempSync(join(tmpdir(), "pi-ts-test-"));
  for (const d of ["agent", "sessions", "cwd", "home"]) mkdirSync(join(base, d));
  // The model server: this readline only reads its "LISTENING <port>" banner (our own text, plain ASCII).
  const llm = spawn(PYTHON, [LLM, "--script", JSON.stringify(script), "--agent-dir", join(base, "agent")], { stdio: ["pipe", "pipe", "inherit"] });
  const banner = await new Promise((res, rej) => {
    const rl = createInterface({ input: llm.stdout });
    rl.once("line", (l) => { rl.close(); res(l); });
    llm.once("exit", (c) => rej(new Error(`scripted model exited ${c}`)));
  });
  assert.match(banner, /^LISTENING \d+$/);
  const env = {
    PATH: process.env.PATH, HOME: join(base, "home"), PI_CODING_AGENT_DIR: join(base, "agent"), PI_OFFLINE: "1",
    PI_TELEMETRY: "0", PI_SKIP_VERSION_CHECK: "1", LANG: "C.UTF-8", SHELL: "/bin/bash",
    PYTHONPATH: [REPO, process.env.PYTHONPATH].filter(Boolean).join(":"),
  };
  const client = new PiRpcClient({
    command: CMD[0], args: [...CMD.slice(1), "--session-dir", join(base, "sessions"), ...extraArgs], cwd: join(base, "cwd"),
    env, inheritEnv: false, defaultTimeoutMs: 20_000, ...clientOpts,
  });
  await client.start();
  const cleanup = async () => {
    await client.close({ timeoutMs: 3000 });
    llm.stdin.end();
    llm.kill();
    rmSync(base, { recursive: true, force: true });
  };
  return { client, cleanup };
}

// ---------------------------------------------------------------- framing
test("LineSplitter splits on LF only; U+2028 stays inside records", () => {
  const rec = Buffer.from(encodeRecord({ type: "x", name: `a${LS}b${PS}c\r\v\f` }));
  assert.equal(rec.indexOf(Buffer.from(LS)) > 0, true);
  const sp = new LineSplitter();
  const lines = [...sp.feed(rec.subarray(0, 5)), ...sp.feed(Buffer.concat([rec.subarray(5), Buffer.from('{"type":"y"}\n{"par')]))];
  assert.equal(lines.length, 2);
  assert.deepEqual(JSON.parse(lines[0].toString()), { type: "x", name: `a${LS}b${PS}c\r\v\f` });
  assert.equal(sp.rest().toString(), '{"par');
});

test("33 commands, each with a method", () => {
  assert.equal(COMMAND_TYPES.length, 33);
  const camel = (s) => s.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
  for (const t of COMMAND_TYPES) assert.equal(typeof PiRpcClient.prototype[camel(t)], "function", t);
  assert.equal(BEYOND_UPSTREAM_COMMAND_TYPES.length, 14);
  for (const t of BEYOND_UPSTREAM_COMMAND_TYPES) assert.equal(typeof PiRpcClient.prototype[camel(t)], "function", t);
});

test("SeqTracker: responses are not gaps; replays fill gaps; truncation throws EventsLost", () => {
  const t = new SeqTracker(1);
  assert.equal(t.classify({ seq: 2 }), "deliver");
  t.noteResponse(3);
  assert.equal(t.classify({ seq: 4 }), "deliver");
  assert.equal(t.classify({ seq: 4 }), "old");
  assert.equal(t.classify({ type: "x" }), "deliver");
  assert.equal(t.classify({ seq: 8 }), "gap");
  assert.deepEqual(t.fill({ events: [{ seq: 5 }, { seq: 7 }, { seq: 8 }], lastSeq: 8, truncated: false }, 8).map((e) => e.seq), [5, 7]);
  assert.equal(t.lastSeq, 7);
  assert.throws(() => t.fill({ events: [], lastSeq: 12, truncated: true }, 13), EventsLost);
  assert.equal(t.lastSeq, 12);
});

// ---------------------------------------------------------------- stub server
test("out-of-order responses are correlated by id; stray responses go to the event stream", async () => {
  const c = new PiRpcClient({ command: PYTHON, args: [STUB, "reverse"], defaultTimeoutMs: 10_000 });
  await c.start();
  const stream = c.events();
  const [a, b] = await Promise.all([c.request({ type: "get_state" }), c.request({ type: "get_messages" })]);
  assert.equal(a.command, "get_state");
  assert.equal(a.data.echo, a.id);
  assert.equal(b.data.echo, b.id);
  assert.equal((await stream.waitFor("session_info_changed", 5000)).name, `x${LS}y`);
  assert.equal((await stream.waitFor((r) => r.type === "response", 5000)).command, "parse");
  assert.equal(c.unmatchedResponses.length, 1);
  assert.equal(await c.close(), 0);
});

test("process death mid-run rejects with exit code and stderr tail", async () => {
  const c = new PiRpcClient({ command: PYTHON, args: [STUB, "die"], defaultTimeoutMs: 10_000 });
  await c.start();
  await assert.rejects(c.promptAndWait("hello"), (e) => e instanceof RpcProcessExited && e.exitCode === 3 && /exploded mid-run/.test(e.stderrTail));
  await assert.rejects(c.getState(), RpcProcessExited);
  await c.close();
});

test("per-call timeout, then clean shutdown on stdin EOF", async () => {
  const c = new PiRpcClient({ command: PYTHON, args: [STUB, "silent"] });
  await c.start();
  await assert.rejects(c.getState({ timeoutMs: 300 }), RpcTimeoutError);
  assert.equal(await c.close(), 0);
});

test("close escalates to SIGKILL for a process ignoring EOF and SIGTERM", async () => {
  const c = new PiRpcClient({ command: PYTHON, args: [STUB, "stubborn"] });
  await c.start();
  await new Promise((r) => setTimeout(r, 300)); // let python install its SIGTERM handler
  await c.close({ timeoutMs: 500 });
  assert.equal(c.process.signalCode, "SIGKILL");
});

// ---------------------------------------------------------------- real server
test("real: get_state, command error, U+2028 session name, EOF exit 0", needs("server"), async () => {
  const { client, cleanup } = await startReal();
  try {
    const st = await client.getState();
    assert.equal(st.model.provider, "conf");
    await assert.rejects(client.setSessionName("  "), (e) => e instanceof RpcCommandError && e.response.error === "Session name cannot be empty");
    const stream = client.events();
    await client.setSessionName(`a${LS}b${PS}c`);
    assert.equal((await stream.waitFor("session_info_changed", 10_000)).name, `a${LS}b${PS}c`);
    stream.close();
    assert.equal((await client.getState()).sessionName, `a${LS}b${PS}c`);
    assert.equal(await client.close(), 0);
    assert.deepEqual(client.protocolErrors, []);
  } finally {
    await cleanup();
  }
});

test("real: 10 MB session name round trip", needs("server"), async () => {
  const { client, cleanup } = await startReal([], { defaultTimeoutMs: 60_000 });
  try {
    const name = "n".repeat(TEN_MB - 3) + "end";
    await client.setSessionName(name);
    assert.equal((await client.getState()).sessionName, name);
  } finally {
    await cleanup();
  }
});

test("real: promptAndWait with U+2028 in the model reply waits for agent_settled", needs("server", "runs"), async () => {
  const { client, cleanup } = await startReal([{ chunks: ["line", LS, "sep", PS, "para"] }]);
  try {
    const r = await client.promptAndWait("Answer with separators");
    assert.equal(r.disposition, "started");
    const types = r.events.map((e) => e.type);
    assert.equal(types.at(-1), "agent_settled");
    assert.ok(types.indexOf("agent_end") < types.indexOf("agent_settled"));
    assert.equal(await client.getLastAssistantText(), `line${LS}sep${PS}para`);
  } finally {
    await cleanup();
  }
});

test("real: 10 MB prompt", needs("server", "runs"), async () => {
  const { client, cleanup } = await startReal([{ text: "got it" }], { defaultTimeoutMs: 120_000 });
  try {
    const message = "p".repeat(TEN_MB - 3) + "end";
    const r = await client.promptAndWait(message);
    const user = r.events.find((e) => e.type === "message_end" && e.message.role === "user");
    assert.equal(user.message.content[0].text, message);
  } finally {
    await cleanup();
  }
});

test("real: server killed mid-run is reported", needs("server", "runs"), async () => {
  const { client, cleanup } = await startReal([{ repeat: { chunk: "slow ", count: 400 }, delay_ms: 50 }]);
  try {
    client.onEvent((r) => {
      if (r.type === "message_update" && client.exitCode === null) client.process.kill("SIGKILL");
    });
    await assert.rejects(client.promptAndWait("stream forever", { timeoutMs: 60_000 }), (e) => e instanceof RpcProcessExited && e.signal === "SIGKILL");
  } finally {
    await cleanup();
  }
});

test("real: bash timeout then abort_bash", needs("server", "bash"), async () => {
  const { client, cleanup } = await startReal();
  try {
    await assert.rejects(client.bash("sleep 20", { timeoutMs: 500 }), RpcTimeoutError);
    await client.abortBash();
    assert.equal((await client.bash("echo ok")).output, "ok\n");
  } finally {
    await cleanup();
  }
});

// ---------------------------------------------------------------- beyond upstream (pi_rpc)
const LONG_TEXT = Array.from({ length: 500 }, (_, i) => `w${i} `);
const textOf = (events) => events.filter((e) => e.type === "message_update" && e.assistantMessageEvent.type === "text_delta")
  .map((e) => e.assistantMessageEvent.delta).join("");

test("real: hostTool answers the model's calls, with updates, errors and cancellation", needs("server", "runs", "beyond"), async () => {
  const calls = [
    { name: "open_editor", arguments: { path: "a.txt" }, id: "c1" },
    { name: "open_editor", arguments: { path: "boom" }, id: "c2" },
  ];
  const { client, cleanup } = await startReal([{ tool_calls: calls }, { text: "done" }, { tool_calls: [{ name: "slow", arguments: {}, id: "c3" }] }]);
  try {
    const schema = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
    await client.hostTool("open_editor", schema, async (args, call) => {
      if (args.path === "boom") throw new Error("no such file: boom");
      await call.update("opening");
      return { content: `opened ${args.path}`, details: { line: 1 } };
    }, { description: "Open a file in the editor." });
    let cancelled, markStarted;
    const started = new Promise((res) => { markStarted = res; });
    await client.hostTool("slow", { type: "object" }, (args, call) => {
      markStarted();
      return new Promise((done) => call.signal.addEventListener("abort", () => { cancelled = true; done("late"); }));
    });
    const tools = await client.getTools();
    assert.deepEqual(tools.filter((t) => t.source === "host").map((t) => t.name), ["open_editor", "slow"]);
    const r = await client.promptAndWait("go");
    const update = r.events.find((e) => e.type === "tool_execution_update");
    assert.deepEqual(update.partialResult.content, [{ type: "text", text: "opening" }]);
    const results = (await client.getMessages()).filter((m) => m.role === "toolResult");
    assert.deepEqual(results[0].content, [{ type: "text", text: "opened a.txt" }]);
    assert.deepEqual(results[0].details, { line: 1 });
    assert.equal(results[1].isError, true);
    assert.equal(results[1].content[0].text, "no such file: boom");
    // The second run's call of "slow" is cancelled by abort (host_tool_cancelled aborts call.signal).
    await client.prompt("again");
    await started;
    assert.equal(await client.abort(), "aborted");
    assert.equal(cancelled, true);
    assert.deepEqual(await client.setActiveTools(["read"]), ["read"]);
  } finally {
    await cleanup();
  }
});

test("real: typed methods beyond upstream", needs("server", "runs", "beyond"), async () => {
  const { client, cleanup } = await startReal([{ text: "one" }, { text: "two" }]);
  try {
    const info = await client.getProtocolInfo();
    assert.equal(info.protocolVersion, 4);
    for (const t of BEYOND_UPSTREAM_COMMAND_TYPES) assert.ok(info.commands.includes(t), t);
    assert.equal(await client.abort(), "idle");
    assert.deepEqual(await client.setEventOptions({ runId: true }), { seq: false, runId: true });
    const r = await client.promptAndWait("first");
    assert.ok(r.events.every((e) => e.runId === r.response.data.runId));
    await client.promptAndWait("second");
    const sessions = await client.listSessions();
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0].firstMessage, "first");
    assert.equal((await client.listSessions({ scope: "all", query: "SECOND", limit: 1 }))[0].path, sessions[0].path);
    await client.renameSession(sessions[0].path, "Named");
    assert.equal((await client.getState()).sessionName, "Named");
    const user = (await client.getForkMessages())[1].entryId;
    await client.setLabel(user, "mark");
    const findNode = (nodes) => nodes.find((n) => n.entry.id === user) ?? findNode(nodes.flatMap((n) => n.children));
    assert.equal(findNode((await client.getTree()).tree).label, "mark");
    await client.setLabel(user, null);
    assert.equal(findNode((await client.getTree()).tree).label, undefined);
    assert.deepEqual(await client.navigateTree(user), { cancelled: false, editorText: "second" });
    await assert.rejects(client.deleteSession(sessions[0].path), (e) => e instanceof RpcCommandError && /current session/.test(e.error));
    await assert.rejects(client.getEvents(0), RpcCommandError); // seq is off
    assert.deepEqual(await client.getScopedModels(), []);
    const first = (await client.getAvailableModels())[0];
    const key = `${first.provider}/${first.id}`;
    assert.deepEqual(await client.setScopedModels([key]), [key]);
    assert.deepEqual(await client.getScopedModels(), [key]);
    await assert.rejects(client.setScopedModels(["nope/x"]), (e) => e instanceof RpcCommandError && /Unknown or unavailable model/.test(e.error));
    assert.ok(Array.isArray(await client.reload()));
  } finally {
    await cleanup();
  }
});

test("real: credential methods answer the login dialog", needs("server", "beyond"), async () => {
  const { client, cleanup } = await startReal([]);
  try {
    assert.deepEqual(await client.getAuthStatus({ provider: "groq" }), [
      { provider: "groq", name: "Groq", authType: null, status: "missing", loginMethods: ["api_key"] },
    ]);
    const stream = client.events();
    const login = client.authLogin("groq", { timeoutMs: 20_000 });
    const request = await stream.waitFor((r) => r.type === "extension_ui_request", 20_000);
    stream.close();
    assert.equal(request.title, "Enter Groq API key");
    client.notify({ type: "extension_ui_response", id: request.id, value: "gsk-test" });
    assert.deepEqual(await login, { provider: "groq", authType: "api_key" });
    assert.equal((await client.getAuthStatus({ provider: "groq" }))[0].status, "ready");
    assert.deepEqual(await client.authLogout("groq"), { provider: "groq", removed: true, authType: "api_key" });
  } finally {
    await cleanup();
  }
});

test("real: sequencedEvents recovers what a bounded buffer let go", needs("server", "runs", "beyond"), async () => {
  const { client, cleanup } = await startReal([{ chunks: LONG_TEXT }], {}, ["--event-buffer", "5000"]);
  try {
    const events = await client.sequencedEvents({ maxBuffer: 15, runId: true });
    const plain = client.events();
    await client.prompt("go");
    await plain.waitFor("agent_settled", 30_000); // the consumer is busy while the whole answer streams
    plain.close();
    const got = [];
    while (!got.length || got.at(-1).type !== "agent_settled") got.push(await events.next(10_000));
    assert.ok(events.dropped > 0 && events.replayed >= events.dropped);
    const seqs = got.map((e) => e.seq);
    assert.deepEqual(seqs, [...new Set(seqs)].sort((a, b) => a - b));
    assert.equal(textOf(got), LONG_TEXT.join(""));
    assert.ok(got.every((e) => typeof e.runId === "string"));
    events.close();
    // resume after a "reload" from a stored seq, and a stale one that is too old for the ring
    const again = await client.sequencedEvents({ since: seqs[seqs.length - 5] });
    const tail = [];
    while (!tail.length || tail.at(-1).type !== "agent_settled") tail.push(await again.next(10_000));
    assert.deepEqual(tail.map((e) => e.seq), seqs.slice(-4));
    again.close();
  } finally {
    await cleanup();
  }
});

test("real: EventsLost when the ring no longer holds the gap", needs("server", "runs", "beyond"), async () => {
  const { client, cleanup } = await startReal([{ chunks: LONG_TEXT.slice(0, 100) }], {}, ["--event-buffer", "20"]);
  try {
    await client.setEventOptions({ seq: true });
    const stale = await client.sequencedEvents({ since: 1 });
    await client.promptAndWait("go");
    await assert.rejects(stale.next(10_000), (e) => e instanceof EventsLost && e.sinceSeq === 1);
    stale.close();
  } finally {
    await cleanup();
  }
});

// ---------------------------------------------------------------- many sessions in one process (pi_rpc)
const ask = (tag, pieces = 40) => ({
  contains: `ask-${tag}`, turn: { chunks: Array.from({ length: pieces }, (_, i) => `${tag}${i} `), delay_ms: 6 },
});
const answerOf = (tag, pieces = 40) => Array.from({ length: pieces }, (_, i) => `${tag}${i} `).join("");

test("SessionHandle borrows every per-session method and each request carries its handle", async () => {
  for (const name of SESSION_METHODS) assert.equal(typeof SessionHandle.prototype[name], "function", name);
  assert.ok(SESSION_METHODS.includes("promptAndWait") && SESSION_METHODS.includes("switchSession"));
  for (const name of ["getEvents", "setEventOptions", "getProtocolInfo", "sequencedEvents", "openSession", "listOpenSessions", "closeSession"]) {
    assert.equal(SessionHandle.prototype[name], undefined, name);
  }
  const sent = [];
  const recorder = {
    options: { defaultTimeoutMs: 1000 },
    request: async (cmd) => { sent.push(cmd); return { type: "response", success: true, data: { disposition: "started" } }; },
  };
  const h = new SessionHandle(recorder, { handle: "h7" });
  assert.equal(await h.prompt("hi"), "started");
  await h.getState();
  await h.setLabel("e1", null);
  await h.request({ type: "get_tree", handle: "explicit" });
  assert.deepEqual(sent.map((c) => c.handle), ["h7", "h7", "h7", "explicit"]);
  assert.deepEqual(sent[0], { type: "prompt", message: "hi", handle: "h7" });
  assert.equal(sent[2].label, null);
});

test("real: sessions stream at once; each handle sees only its own records; close", needs("server", "runs", "beyond", "handles"), async () => {
  const { client, cleanup } = await startReal({ rules: [ask("A"), ask("B"), ask("C")] });
  try {
    const a = await client.openSession();
    const b = await client.openSession({ model: "conf/conf-reasoner", thinkingLevel: "high", noSession: true });
    assert.notEqual(a.handle, b.handle);
    assert.equal(b.sessionFile, null);
    const open = Object.fromEntries((await client.listOpenSessions()).map((s) => [s.handle, s]));
    assert.deepEqual(Object.keys(open).sort(), [DEFAULT_HANDLE, a.handle, b.handle].sort());
    assert.equal(open[b.handle].model, "conf/conf-reasoner");
    assert.equal((await b.getState()).thinkingLevel, "high");
    assert.equal((await a.getState()).sessionId, a.sessionId);

    const everything = client.events();
    const listened = [];
    const off = b.onEvent((r) => listened.push(r));
    const [ra, rb, rc] = await Promise.all([a.promptAndWait("ask-A"), b.promptAndWait("ask-B"), client.promptAndWait("ask-C")]);
    off();
    assert.equal(textOf(ra.events), answerOf("A"));
    assert.equal(textOf(rb.events), answerOf("B"));
    assert.equal(textOf(rc.events), answerOf("C"));
    assert.ok(ra.events.every((e) => e.handle === a.handle));
    assert.ok(rb.events.every((e) => e.handle === b.handle));
    assert.ok(rc.events.every((e) => !("handle" in e)));
    assert.deepEqual(listened, rb.events);
    // the three runs overlapped on the one stdout
    const tags = everything.drain().filter((e) => e.type === "message_update").map((e) => e.handle ?? DEFAULT_HANDLE);
    everything.close();
    const firstEnd = Math.min(...[...new Set(tags)].map((t) => tags.lastIndexOf(t)));
    assert.equal(new Set(tags.slice(0, firstEnd)).size, 3);

    await a.close();
    await a.close(); // idempotent
    assert.ok(a.closed);
    await assert.rejects(client.request({ type: "get_state", handle: a.handle }), (e) => e instanceof RpcCommandError && e.error.includes(a.handle));
    await assert.rejects(client.sessionHandle().close(), RpcCommandError); // "default" stays
    assert.deepEqual((await client.listOpenSessions()).map((s) => s.handle).sort(), [DEFAULT_HANDLE, b.handle].sort());
    assert.equal((await client.sessionHandle().getState()).sessionId, (await client.getState()).sessionId);
  } finally {
    await cleanup();
  }
});
