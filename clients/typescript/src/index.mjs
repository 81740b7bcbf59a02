// pi RPC client for Node (ESM, no runtime dependencies): spawns `pi --mode rpc`, frames JSONL on LF
// only, correlates responses by generated ids, fans events out to listeners and async streams.
// Types: ../index.d.ts (protocol shapes generated from protocol/schema/*.json into types/protocol.d.ts).

import { spawn } from "node:child_process";

export const COMMAND_TYPES = Object.freeze([
  "prompt", "steer", "follow_up", "abort", "clear_queue", "new_session", "get_state", "set_model",
  "cycle_model", "get_available_models", "set_thinking_level", "cycle_thinking_level",
  "get_available_thinking_levels", "set_steering_mode", "set_follow_up_mode", "compact",
  "set_auto_compaction", "set_auto_retry", "abort_retry", "bash", "abort_bash", "get_session_stats",
  "export_html", "switch_session", "fork", "clone", "get_fork_messages", "get_entries", "get_tree",
  "get_last_assistant_text", "set_session_name", "get_messages", "get_commands",
]);

export class RpcError extends Error {}

export class RpcCommandError extends RpcError {
  constructor(response) {
    super(`${response.command ?? "<no command>"}: ${response.error}`);
    this.name = "RpcCommandError";
    this.response = response;
    this.command = response.command;
    this.error = response.error;
  }
}

export class RpcTimeoutError extends RpcError {
  constructor(what, timeoutMs) {
    super(`timed out after ${timeoutMs}ms waiting for ${what}`);
    this.name = "RpcTimeoutError";
    this.what = what;
    this.timeoutMs = timeoutMs;
  }
}

export class RpcProcessExited extends RpcError {
  constructor(exitCode, signal, stderrTail, context = "") {
    let msg = `pi process exited (code ${exitCode}${signal ? `, signal ${signal}` : ""})`;
    if (context) msg += ` while ${context}`;
    if (stderrTail.trim()) msg += `; stderr tail:\n${stderrTail.trimEnd()}`;
    super(msg);
    this.name = "RpcProcessExited";
    this.exitCode = exitCode;
    this.signal = signal;
    this.stderrTail = stderrTail;
  }
}

/** Serialise one record: JSON.stringify + LF (U+2028 stays raw; the reader splits on LF only). */
export function encodeRecord(obj) {
  return JSON.stringify(obj) + "\n";
}

/** Incremental LF-only splitter over Buffers. Never use node:readline here: it splits on more than LF. */
export class LineSplitter {
  #parts = [];
  feed(chunk) {
    const lines = [];
    let start = 0;
    let nl;
    while ((nl = chunk.indexOf(0x0a, start)) !== -1) {
      this.#parts.push(chunk.subarray(start, nl));
      lines.push(Buffer.concat(this.#parts));
      this.#parts = [];
      start = nl + 1;
    }
    if (start < chunk.length) this.#parts.push(chunk.subarray(start));
    return lines;
  }
  rest() {
    const b = Buffer.concat(this.#parts);
    this.#parts = [];
    return b;
  }
}

const EXITED = Symbol("exited");

/** Buffered subscription to non-response records; async-iterable. Subscribe before sending. */
export class EventStream {
  #client;
  #queue = [];
  #waiters = [];
  closed = false;
  constructor(client) {
    this.#client = client;
  }
  _push(item) {
    const w = this.#waiters.shift();
    if (w) w(item);
    else this.#queue.push(item);
  }
  /** Next record; rejects with RpcTimeoutError / RpcProcessExited. */
  next(timeoutMs) {
    if (this.#queue.length) {
      const item = this.#queue[0];
      if (item === EXITED) return Promise.reject(this.#client._exitError("waiting for events"));
      this.#queue.shift();
      return Promise.resolve(item);
    }
    return new Promise((resolve, reject) => {
      let timer;
      const waiter = (item) => {
        if (timer) clearTimeout(timer);
        if (item === EXITED) {
          this.#queue.unshift(EXITED);
          reject(this.#client._exitError("waiting for events"));
        } else resolve(item);
      };
      this.#waiters.push(waiter);
      if (timeoutMs != null) {
        timer = setTimeout(() => {
          const i = this.#waiters.indexOf(waiter);
          if (i >= 0) this.#waiters.splice(i, 1);
          reject(new RpcTimeoutError("next event", timeoutMs));
        }, timeoutMs);
      }
    });
  }
  /** Skip records until one has `type === match` (or `match(record)` is true). */
  async waitFor(match, timeoutMs) {
    const pred = typeof match === "string" ? (r) => r.type === match : match;
    const deadline = timeoutMs == null ? null : Date.now() + timeoutMs;
    for (;;) {
      const remaining = deadline == null ? undefined : Math.max(0, deadline - Date.now());
      let rec;
      try {
        rec = await this.next(remaining);
      } catch (e) {
        if (e instanceof RpcTimeoutError) throw new RpcTimeoutError(`event ${typeof match === "string" ? match : "<predicate>"}`, timeoutMs);
        throw e;
      }
      if (pred(rec)) return rec;
    }
  }
  /** Records buffered right now. */
  drain() {
    const out = [];
    while (this.#queue.length && this.#queue[0] !== EXITED) out.push(this.#queue.shift());
    return out;
  }
  async *[Symbol.asyncIterator]() {
    try {
      for (;;) yield await this.next();
    } catch (e) {
      if (!(e instanceof RpcProcessExited)) throw e;
    }
  }
  close() {
    if (!this.closed) {
      this.closed = true;
      this.#client._unsubscribe(this);
    }
  }
}

export class PiRpcClient {
  #pending = new Map();
  #streams = new Set();
  #listeners = new Set();
  #nextId = 0;
  #stderr = Buffer.alloc(0);
  #ended = false;
  #exit = null; // {code, signal}
  #exitPromise = null;
  #resolveExit = null;

  /**
   * @param {object} options
   * @param {string} options.command executable (e.g. "pi", or process.execPath / python)
   * @param {string[]} [options.args] e.g. ["--mode", "rpc"]
   */
  constructor(options) {
    this.options = { inheritEnv: true, defaultTimeoutMs: 60_000, stderrTailBytes: 64 * 1024, ...options };
    this.unmatchedResponses = [];
    this.protocolErrors = [];
    this.process = null;
  }

  start() {
    if (this.process) throw new RpcError("client already started");
    const o = this.options;
    const env = { ...(o.inheritEnv ? process.env : {}), ...(o.env ?? {}) };
    const child = spawn(o.command, o.args ?? [], { cwd: o.cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    this.process = child;
    this.#exitPromise = new Promise((r) => (this.#resolveExit = r));
    const splitter = new LineSplitter();
    let stdoutDone = false;
    let exited = false;
    const maybeEnd = () => {
      if (stdoutDone && exited && !this.#ended) this.#onEnd();
    };
    child.stdout.on("data", (chunk) => {
      for (const line of splitter.feed(chunk)) this.#dispatch(line);
    });
    child.stdout.on("end", () => {
      const tail = splitter.rest();
      if (tail.length && tail.toString("utf8").trim()) this.#dispatch(tail);
      stdoutDone = true;
      maybeEnd();
    });
    child.stderr.on("data", (chunk) => {
      this.#stderr = Buffer.concat([this.#stderr, chunk]);
      if (this.#stderr.length > o.stderrTailBytes) this.#stderr = this.#stderr.subarray(this.#stderr.length - o.stderrTailBytes);
      o.onStderr?.(chunk);
    });
    child.stdin.on("error", () => {}); // EPIPE surfaces through the exit path
    child.on("close", (code, signal) => {
      this.#exit = { code, signal };
      exited = true;
      stdoutDone = true;
      maybeEnd();
      this.#resolveExit(code);
    });
    child.on("error", (err) => {
      this.#stderr = Buffer.concat([this.#stderr, Buffer.from(`spawn error: ${err.message}\n`)]);
      this.#exit = { code: null, signal: null };
      exited = true;
      stdoutDone = true;
      maybeEnd();
      this.#resolveExit(null);
    });
    return new Promise((resolve, reject) => {
      child.once("spawn", () => resolve(this));
      child.once("error", (e) => reject(new RpcProcessExited(null, null, this.stderr, `spawning (${e.message})`)));
    });
  }

  get pid() { return this.process?.pid; }
  get exitCode() { return this.#exit?.code ?? null; }
  get stderr() { return this.#stderr.toString("utf8"); }

  _exitError(context) {
    return new RpcProcessExited(this.#exit?.code ?? null, this.#exit?.signal ?? null, this.stderr.slice(-4000), context);
  }

  #dispatch(line) {
    let rec;
    try {
      rec = JSON.parse(line.toString("utf8"));
    } catch (e) {
      this.protocolErrors.push({ line: line.toString("utf8"), reason: String(e) });
      return;
    }
    if (rec === null || typeof rec !== "object" || Array.isArray(rec)) {
      this.protocolErrors.push({ line: line.toString("utf8"), reason: "not an object" });
      return;
    }
    if (rec.type === "response" && "id" in rec) {
      const key = JSON.stringify(rec.id);
      const p = this.#pending.get(key);
      if (p) {
        this.#pending.delete(key);
        p.resolve(rec);
        return;
      }
    }
    if (rec.type === "response") this.unmatchedResponses.push(rec);
    for (const s of this.#streams) s._push(rec);
    for (const fn of this.#listeners) {
      try { fn(rec); } catch { /* a faulty listener must not stop the reader */ }
    }
  }

  #onEnd() {
    this.#ended = true;
    for (const p of this.#pending.values()) p.reject(this._exitError(`waiting for the response to ${p.command}`));
    this.#pending.clear();
    for (const s of this.#streams) s._push(EXITED);
  }

  /** Subscribe to events/UI requests/uncorrelated responses from now on. */
  events() {
    const s = new EventStream(this);
    this.#streams.add(s);
    if (this.#ended) s._push(EXITED);
    return s;
  }
  _unsubscribe(s) { this.#streams.delete(s); }

  /** Listener runs for every non-response record; returns an unsubscribe function. */
  onEvent(listener) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Write raw bytes/text to stdin (framing tests). */
  sendRaw(data) {
    if (!this.process) throw new RpcError("client not started");
    if (this.#ended || this.process.stdin.destroyed) throw this._exitError("writing to stdin");
    return new Promise((resolve, reject) => {
      this.process.stdin.write(data, (err) => (err ? reject(this._exitError(`writing to stdin (${err.message})`)) : resolve()));
    });
  }

  /** Send a record that gets no response (extension_ui_response). */
  notify(record) { return this.sendRaw(encodeRecord(record)); }

  newId() { return `ts-${++this.#nextId}`; }

  /**
   * Send a command and wait for its correlated response.
   * @param {object} command
   * @param {{timeoutMs?: number|null, check?: boolean}} [opts]
   */
  request(command, opts = {}) {
    const timeoutMs = opts.timeoutMs === undefined ? this.options.defaultTimeoutMs : opts.timeoutMs;
    const check = opts.check ?? true;
    const cmd = { ...command };
    if (!("id" in cmd)) cmd.id = this.newId();
    if (this.#ended) return Promise.reject(this._exitError(`sending ${cmd.type}`));
    const key = JSON.stringify(cmd.id);
    return new Promise((resolve, reject) => {
      let timer;
      const entry = {
        command: String(cmd.type),
        resolve: (rec) => {
          if (timer) clearTimeout(timer);
          if (check && !rec.success) reject(new RpcCommandError(rec));
          else resolve(rec);
        },
        reject: (err) => {
          if (timer) clearTimeout(timer);
          reject(err);
        },
      };
      this.#pending.set(key, entry);
      if (timeoutMs != null) {
        timer = setTimeout(() => {
          this.#pending.delete(key);
          reject(new RpcTimeoutError(`response to ${cmd.type} (id ${JSON.stringify(cmd.id)})`, timeoutMs));
        }, timeoutMs);
      }
      this.sendRaw(encodeRecord(cmd)).catch((err) => {
        this.#pending.delete(key);
        entry.reject(err);
      });
    });
  }

  async #call(type, fields = {}, timeoutMs) {
    const cmd = { type };
    for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== null) cmd[k] = v;
    const rec = await this.request(cmd, { timeoutMs });
    return rec.data;
  }

  // ---- the 33 commands (options object last; `timeoutMs` per call) ----
  async prompt(message, { images, streamingBehavior, timeoutMs } = {}) {
    return (await this.#call("prompt", { message, images, streamingBehavior }, timeoutMs))?.disposition;
  }
  async steer(message, { images, timeoutMs } = {}) {
    return (await this.#call("steer", { message, images }, timeoutMs))?.disposition;
  }
  async followUp(message, { images, timeoutMs } = {}) {
    return (await this.#call("follow_up", { message, images }, timeoutMs))?.disposition;
  }
  async abort({ timeoutMs } = {}) { await this.#call("abort", {}, timeoutMs); }
  clearQueue({ timeoutMs } = {}) { return this.#call("clear_queue", {}, timeoutMs); }
  newSession({ parentSession, timeoutMs } = {}) { return this.#call("new_session", { parentSession }, timeoutMs); }
  getState({ timeoutMs } = {}) { return this.#call("get_state", {}, timeoutMs); }
  setModel(provider, modelId, { timeoutMs } = {}) { return this.#call("set_model", { provider, modelId }, timeoutMs); }
  cycleModel({ timeoutMs } = {}) { return this.#call("cycle_model", {}, timeoutMs); }
  async getAvailableModels({ timeoutMs } = {}) { return (await this.#call("get_available_models", {}, timeoutMs)).models; }
  async setThinkingLevel(level, { timeoutMs } = {}) { await this.#call("set_thinking_level", { level }, timeoutMs); }
  cycleThinkingLevel({ timeoutMs } = {}) { return this.#call("cycle_thinking_level", {}, timeoutMs); }
  async getAvailableThinkingLevels({ timeoutMs } = {}) {
    return (await this.#call("get_available_thinking_levels", {}, timeoutMs)).levels;
  }
  async setSteeringMode(mode, { timeoutMs } = {}) { await this.#call("set_steering_mode", { mode }, timeoutMs); }
  async setFollowUpMode(mode, { timeoutMs } = {}) { await this.#call("set_follow_up_mode", { mode }, timeoutMs); }
  compact({ customInstructions, timeoutMs } = {}) { return this.#call("compact", { customInstructions }, timeoutMs); }
  async setAutoCompaction(enabled, { timeoutMs } = {}) { await this.#call("set_auto_compaction", { enabled }, timeoutMs); }
  async setAutoRetry(enabled, { timeoutMs } = {}) { await this.#call("set_auto_retry", { enabled }, timeoutMs); }
  async abortRetry({ timeoutMs } = {}) { await this.#call("abort_retry", {}, timeoutMs); }
  bash(command, { excludeFromContext, timeoutMs } = {}) { return this.#call("bash", { command, excludeFromContext }, timeoutMs); }
  async abortBash({ timeoutMs } = {}) { await this.#call("abort_bash", {}, timeoutMs); }
  getSessionStats({ timeoutMs } = {}) { return this.#call("get_session_stats", {}, timeoutMs); }
  async exportHtml({ outputPath, timeoutMs } = {}) { return (await this.#call("export_html", { outputPath }, timeoutMs)).path; }
  switchSession(sessionPath, { timeoutMs } = {}) { return this.#call("switch_session", { sessionPath }, timeoutMs); }
  fork(entryId, { timeoutMs } = {}) { return this.#call("fork", { entryId }, timeoutMs); }
  clone({ timeoutMs } = {}) { return this.#call("clone", {}, timeoutMs); }
  async getForkMessages({ timeoutMs } = {}) { return (await this.#call("get_fork_messages", {}, timeoutMs)).messages; }
  getEntries({ since, timeoutMs } = {}) { return this.#call("get_entries", { since }, timeoutMs); }
  getTree({ timeoutMs } = {}) { return this.#call("get_tree", {}, timeoutMs); }
  async getLastAssistantText({ timeoutMs } = {}) {
    return (await this.#call("get_last_assistant_text", {}, timeoutMs))?.text ?? null;
  }
  async setSessionName(name, { timeoutMs } = {}) { await this.#call("set_session_name", { name }, timeoutMs); }
  async getMessages({ timeoutMs } = {}) { return (await this.#call("get_messages", {}, timeoutMs)).messages; }
  async getCommands({ timeoutMs } = {}) { return (await this.#call("get_commands", {}, timeoutMs)).commands; }

  /**
   * Prompt and collect events until `agent_settled` (not agent_end: retries, compaction and queued
   * follow-ups come after it). A "handled" prompt resolves at once with no events.
   */
  async promptAndWait(message, { images, streamingBehavior, timeoutMs } = {}) {
    const budget = timeoutMs === undefined ? this.options.defaultTimeoutMs : timeoutMs;
    const deadline = budget == null ? null : Date.now() + budget;
    const stream = this.events();
    try {
      const cmd = { type: "prompt", message };
      if (images) cmd.images = images;
      if (streamingBehavior) cmd.streamingBehavior = streamingBehavior;
      const response = await this.request(cmd, { timeoutMs: budget });
      const disposition = response.data?.disposition;
      const events = [];
      if (disposition === "handled") return { response, disposition, events };
      for (;;) {
        const remaining = deadline == null ? undefined : deadline - Date.now();
        if (remaining !== undefined && remaining <= 0) throw new RpcTimeoutError("agent_settled", budget);
        let ev;
        try {
          ev = await stream.next(remaining);
        } catch (e) {
          if (e instanceof RpcTimeoutError) throw new RpcTimeoutError("agent_settled", budget);
          throw e;
        }
        events.push(ev);
        if (ev.type === "agent_settled") return { response, disposition, events };
      }
    } finally {
      stream.close();
    }
  }

  /** Close stdin, wait; then SIGTERM, wait; then SIGKILL the process group. Resolves to the exit code. */
  async close({ timeoutMs = 5000 } = {}) {
    const child = this.process;
    if (!child) return null;
    if (!this.#exit) {
      try { child.stdin.end(); } catch { /* already gone */ }
      for (const sig of [null, "SIGTERM", "SIGKILL"]) {
        if (sig && !this.#exit) {
          try {
            if (sig === "SIGKILL") process.kill(-child.pid, sig);
            else child.kill(sig);
          } catch { /* exited meanwhile */ }
        }
        const done = await Promise.race([
          this.#exitPromise.then(() => true),
          new Promise((r) => setTimeout(() => r(false), timeoutMs).unref()),
        ]);
        if (done) break;
      }
    }
    await this.#exitPromise;
    return this.#exit?.code ?? null;
  }
}

export default PiRpcClient;
