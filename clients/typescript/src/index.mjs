// pi RPC client for Node (ESM, no runtime dependencies): spawns `pi --mode rpc`, frames JSONL on LF
// only, correlates responses by generated ids, fans events out to listeners and async streams.
// Types: ../index.d.ts (protocol shapes generated from protocol/schema/*.json into types/protocol.d.ts).

import { spawn } from "node:child_process";
import { createConnection } from "node:net";

export const COMMAND_TYPES = Object.freeze([
  "prompt", "steer", "follow_up", "abort", "clear_queue", "new_session", "get_state", "set_model",
  "cycle_model", "get_available_models", "set_thinking_level", "cycle_thinking_level",
  "get_available_thinking_levels", "set_steering_mode", "set_follow_up_mode", "compact",
  "set_auto_compaction", "set_auto_retry", "abort_retry", "bash", "abort_bash", "get_session_stats",
  "export_html", "switch_session", "fork", "clone", "get_fork_messages", "get_entries", "get_tree",
  "get_last_assistant_text", "set_session_name", "get_messages", "get_commands",
]);

// Commands beyond upstream 1.6 (pi_rpc only; upstream answers "Unknown command: <type>").
export const BEYOND_UPSTREAM_COMMAND_TYPES = Object.freeze([
  "get_protocol_info", "set_event_options", "get_events", "list_sessions", "rename_session",
  "delete_session", "navigate_tree", "set_label", "get_auth_status", "auth_login", "auth_logout",
  "set_host_tools", "get_tools", "set_active_tools",
]);

// Many sessions in one process (pi_rpc, issue 24): openSession returns a SessionHandle; every other
// command takes an optional `handle`.
export const SESSION_HANDLE_COMMAND_TYPES = Object.freeze(["open_session", "close_session", "list_open_sessions"]);
// Commands of the process, not of one session: a SessionHandle does not have them.
export const PROCESS_COMMAND_TYPES = Object.freeze(["get_protocol_info", "set_event_options", "get_events"]);
export const DEFAULT_HANDLE = "default";

/** The records of one handle: tagged with it; for "default" also the untagged ones. */
export function belongsTo(handle) {
  if (handle === DEFAULT_HANDLE) return (rec) => (rec.handle ?? DEFAULT_HANDLE) === DEFAULT_HANDLE;
  return (rec) => rec.handle === handle;
}

export class RpcError extends Error {}

/** Events after `sinceSeq` are no longer in the server's ring (get_events: truncated): rebuild from state. */
export class EventsLost extends RpcError {
  constructor(sinceSeq, untilSeq) {
    super(`events after seq ${sinceSeq} (before ${untilSeq}) are no longer kept by the server (get_events: truncated); rebuild the view from getState / getMessages`);
    this.name = "EventsLost";
    this.sinceSeq = sinceSeq;
    this.untilSeq = untilSeq;
  }
}

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
  #accept;
  #queue = [];
  #waiters = [];
  closed = false;
  /** `accept` (optional) keeps only the records it accepts (one session handle's). */
  constructor(client, accept = null) {
    this.#client = client;
    this.#accept = accept;
  }
  _push(item) {
    if (this.#accept && item !== EXITED && !this.#accept(item)) return;
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

/**
 * Gap bookkeeping without I/O (seq numbers, pi_rpc beyond upstream): which events to deliver, in order,
 * exactly once. Responses are numbered too; report the numbers of consumed responses with noteResponse.
 */
export class SeqTracker {
  static DELIVER = "deliver";
  static OLD = "old";
  static GAP = "gap";
  #responses = new Set();
  constructor(lastSeq = 0) { this.lastSeq = lastSeq; }
  noteResponse(seq) { if (seq > this.lastSeq) this.#responses.add(seq); }
  #skipResponses() {
    while (this.#responses.has(this.lastSeq + 1)) { this.#responses.delete(this.lastSeq + 1); this.lastSeq += 1; }
  }
  #prune() { for (const s of this.#responses) if (s <= this.lastSeq) this.#responses.delete(s); }
  /** "deliver" (next in order; lastSeq advances), "old" (drop it) or "gap" (events before it are missing). */
  classify(event) {
    const seq = event?.seq;
    if (!Number.isInteger(seq)) return SeqTracker.DELIVER;
    this.#skipResponses();
    if (seq <= this.lastSeq) return SeqTracker.OLD;
    if (seq === this.lastSeq + 1) { this.lastSeq = seq; return SeqTracker.DELIVER; }
    return SeqTracker.GAP;
  }
  /**
   * The missed events of a `get_events {sinceSeq: lastSeq}` answer (those below untilSeq when given), in
   * order; lastSeq moves past them. A truncated answer throws EventsLost after moving past the whole gap.
   */
  fill(replay, untilSeq) {
    const since = this.lastSeq;
    const events = (replay?.events ?? []).filter((e) => e.seq > since && (untilSeq == null || e.seq < untilSeq));
    if (replay?.truncated) {
      const end = untilSeq != null ? untilSeq - 1 : Number(replay.lastSeq ?? since);
      this.lastSeq = Math.max(since, end);
      this.#prune();
      throw new EventsLost(since, this.lastSeq + 1);
    }
    if (events.length) this.lastSeq = events[events.length - 1].seq;
    if (untilSeq != null) this.lastSeq = Math.max(this.lastSeq, untilSeq - 1); // the rest were responses
    this.#prune();
    return events;
  }
}

/**
 * Events in `seq` order, each once, gaps filled from `get_events` (create with client.sequencedEvents()).
 * With `maxBuffer`, a consumer that falls behind costs bounded memory: newer records are let go and fetched
 * again with get_events when it catches up (as long as the server's ring holds them; else EventsLost).
 */
export class SequencedEventStream {
  #client;
  #queue = [];
  #ready = [];
  #waiters = [];
  #max;
  #ended = false;
  #droppedThrough = 0;
  #resume = false;
  #unobserve;
  closed = false;
  dropped = 0;
  replayed = 0;
  constructor(client, { maxBuffer } = {}) {
    if (maxBuffer != null && !(maxBuffer >= 1)) throw new RangeError("maxBuffer must be positive");
    this.#client = client;
    this.#max = maxBuffer ?? null;
    this.tracker = new SeqTracker();
    this.#unobserve = client._observeRecords((rec) => this.#onRecord(rec));
  }
  async _begin({ since, runId, timeoutMs } = {}) {
    try {
      if (since == null) {
        const cmd = { type: "set_event_options", seq: true };
        if (runId != null) cmd.runId = runId;
        const response = await this.#client.request(cmd, { timeoutMs });
        this.tracker.lastSeq = Number(response.seq ?? 0);
      } else {
        this.tracker.lastSeq = since;
        this.#resume = true;
      }
    } catch (e) {
      this.close();
      throw e;
    }
    return this;
  }
  get lastSeq() { return this.tracker.lastSeq; }
  #onRecord(rec) {
    if (rec === EXITED) {
      this.#ended = true;
      for (const w of this.#waiters.splice(0)) w();
      return;
    }
    if (rec.type === "response") {
      if (Number.isInteger(rec.seq)) this.tracker.noteResponse(rec.seq);
      return;
    }
    if (this.#max != null && this.#queue.length >= this.#max) {
      this.dropped += 1;
      if (Number.isInteger(rec.seq)) this.#droppedThrough = Math.max(this.#droppedThrough, rec.seq);
      return;
    }
    this.#queue.push(rec);
    const w = this.#waiters.shift();
    if (w) w();
  }
  async #catchUp(timeoutMs, untilSeq) {
    const replay = await this.#client.request({ type: "get_events", sinceSeq: this.tracker.lastSeq }, { timeoutMs });
    const missed = this.tracker.fill(replay.data ?? {}, untilSeq);
    this.replayed += missed.length;
    this.#ready.push(...missed);
  }
  #wait(timeoutMs) {
    return new Promise((resolve, reject) => {
      let timer;
      const waiter = () => { if (timer) clearTimeout(timer); resolve(); };
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
  /** The next event in order; rejects with RpcTimeoutError, RpcProcessExited or EventsLost. */
  async next(timeoutMs) {
    if (this.#resume) {
      this.#resume = false;
      await this.#catchUp(timeoutMs);
    }
    for (;;) {
      if (this.#ready.length) return this.#ready.shift();
      if (!this.#queue.length) {
        if (this.#droppedThrough > this.tracker.lastSeq) {
          await this.#catchUp(timeoutMs); // the newest records were let go: fetch them now
          continue;
        }
        if (this.#ended) throw this.#client._exitError("waiting for events");
        await this.#wait(timeoutMs);
        continue;
      }
      const item = this.#queue.shift();
      const verdict = this.tracker.classify(item);
      if (verdict === SeqTracker.DELIVER) return item;
      if (verdict === SeqTracker.GAP) {
        try {
          await this.#catchUp(timeoutMs, item.seq);
        } finally { // after EventsLost too, the stream goes on with this event
          this.tracker.lastSeq = item.seq;
          this.#ready.push(item);
        }
      }
    }
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
      this.#unobserve();
    }
  }
}

export class PiRpcClient {
  #wire = null; // a connection to a --listen server: {send(data), close()}
  #closing = false;
  #pending = new Map();
  #observers = new Set();
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
    if (this.process || this.#wire) throw new RpcError("client already started");
    const o = this.options;
    if (o.address) return this.#startConnection();
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

  // ---- a running `pi --mode rpc --listen <address>` server (connect) ----
  /** Sessions this connection is attached to, and the last `seq` it received (reconnect). */
  attached = new Set([DEFAULT_HANDLE]);
  lastSeq = 0;
  reconnects = [];

  async #startConnection() {
    this._observeRecords((rec) => {
      if (rec === EXITED) return;
      if (Number.isInteger(rec.seq) && rec.seq > this.lastSeq) this.lastSeq = rec.seq;
      if (rec.type === "response" && rec.success && rec.command === "open_session" && rec.data?.handle) this.attached.add(rec.data.handle);
    });
    await this.#connectOnce(null);
    return this;
  }

  #openWire() {
    const o = this.options;
    const address = o.address;
    const splitter = new LineSplitter();
    return new Promise((resolve, reject) => {
      let opened = false;
      const lost = () => {
        if (this.#wire !== wire) return;
        if (o.reconnect && !this.#closing) this.#reconnect();
        else if (!this.#ended) this.#onEnd();
      };
      let wire;
      if (address.startsWith("ws://") || address.startsWith("wss://")) {
        if (typeof globalThis.WebSocket !== "function") return reject(new RpcError("ws:// needs a runtime with WebSocket (Node 22+)"));
        const ws = new globalThis.WebSocket(address);
        wire = {
          send: async (data) => { for (const line of String(data).split("\n")) if (line) ws.send(line); },
          close: () => ws.close(),
        };
        ws.onmessage = (m) => this.#dispatch(Buffer.from(typeof m.data === "string" ? m.data : new Uint8Array(m.data)));
        ws.onopen = () => { opened = true; resolve(wire); };
        ws.onerror = () => { if (!opened) reject(new RpcError(`cannot connect to ${address}`)); };
        ws.onclose = () => { if (opened) lost(); };
        this.#wire = wire;
        return;
      }
      let target;
      if (address.startsWith("unix:")) target = { path: address.slice(5) };
      else if (address.startsWith("tcp:")) {
        const at = address.lastIndexOf(":");
        target = { host: address.slice(4, at).replace(/^\[|\]$/g, ""), port: Number(address.slice(at + 1)) };
      } else return reject(new RpcError(`unknown address ${address}: expected unix:<path>, tcp:<host>:<port>, ws:// or wss://`));
      const socket = createConnection(target);
      wire = {
        send: (data) => new Promise((res, rej) => socket.write(data, (err) => (err ? rej(new RpcError(`the connection dropped (${err.message})`)) : res()))),
        close: () => socket.destroy(),
      };
      socket.on("connect", () => { opened = true; resolve(wire); });
      socket.on("data", (chunk) => { for (const line of splitter.feed(chunk)) this.#dispatch(line); });
      socket.on("error", (err) => { if (!opened) reject(new RpcError(`cannot connect to ${address} (${err.message})`)); });
      socket.on("close", () => { if (opened) lost(); });
      this.#wire = wire;
    });
  }

  async #connectOnce(since) {
    const o = this.options;
    await this.#openWire();
    const timeoutMs = o.connectTimeoutMs ?? 10_000;
    // (a browser-style WebSocket cannot set the Authorization header: the first message, everywhere)
    if (o.token) await this.request({ type: "authenticate", token: o.token }, { timeoutMs });
    if (o.reconnect) await this.request({ type: "set_event_options", seq: true }, { timeoutMs });
    if (since != null) {
      if (!this.attached.has(DEFAULT_HANDLE)) await this.request({ type: "detach_session", handle: DEFAULT_HANDLE }, { timeoutMs });
      for (const handle of [...this.attached].sort()) {
        const rec = await this.request({ type: "attach_session", handle, since }, { timeoutMs });
        this.reconnects.push({ handle, since, ...(rec.data ?? {}) });
      }
    }
  }

  async #reconnect() {
    const since = this.lastSeq; // (the new connection's own responses are numbered too)
    for (const p of this.#pending.values()) p.reject(new RpcError(`the connection dropped while waiting for the response to ${p.command}`));
    this.#pending.clear();
    const deadline = Date.now() + (this.options.reconnectForMs ?? 30_000);
    let delay = 50;
    while (!this.#closing && Date.now() < deadline) {
      try {
        await this.#connectOnce(since);
        return;
      } catch {
        this.#wire?.close();
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 1000);
      }
    }
    if (!this.#ended) this.#onEnd();
  }

  /** Tests: drop the connection as a network fault would (reconnect then takes over). */
  _dropForTest() { this.#wire?.close(); }

  /** attach_session: this connection receives the session's events (with `since`: the ring's first). */
  async attach(handle, { since, timeoutMs } = {}) {
    const data = await this._call("attach_session", { handle, since }, timeoutMs);
    this.attached.add(handle);
    return data;
  }
  /** detach_session: stop receiving the session's events (its runs go on). */
  async detach(handle, { timeoutMs } = {}) {
    await this._call("detach_session", { handle }, timeoutMs);
    this.attached.delete(handle);
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
    for (const observe of this.#observers) observe(rec);
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
    for (const observe of this.#observers) observe(EXITED);
  }

  /** Called with every record (correlated responses too), then EXITED at the end (SequencedEventStream). */
  _observeRecords(observer) {
    this.#observers.add(observer);
    if (this.#ended) observer(EXITED);
    return () => this.#observers.delete(observer);
  }

  /**
   * Turn `seq` numbering on (pi_rpc beyond upstream; `runId` too when given) and get the events in order,
   * each once, gaps recovered with get_events. `maxBuffer` bounds what waits for the consumer; `since`
   * resumes after a stored lastSeq instead of turning numbering on.
   */
  sequencedEvents({ maxBuffer, since, runId, timeoutMs } = {}) {
    const stream = new SequencedEventStream(this, { maxBuffer });
    return stream._begin({ since, runId, timeoutMs: timeoutMs === undefined ? this.options.defaultTimeoutMs : timeoutMs });
  }

  /**
   * Subscribe to events/UI requests/uncorrelated responses from now on; with `handle`, only that
   * session's (for "default": the untagged records too).
   */
  events({ handle } = {}) {
    const s = new EventStream(this, handle == null ? null : belongsTo(handle));
    this.#streams.add(s);
    if (this.#ended) s._push(EXITED);
    return s;
  }
  _unsubscribe(s) { this.#streams.delete(s); }

  /** Listener runs for every non-response record (with `handle`: that session's); returns an unsubscribe function. */
  onEvent(listener, { handle } = {}) {
    let fn = listener;
    if (handle != null) {
      const accept = belongsTo(handle);
      fn = (rec) => { if (accept(rec)) listener(rec); };
    }
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** Write raw bytes/text to stdin (framing tests). */
  sendRaw(data) {
    if (this.#wire) {
      if (this.#ended) return Promise.reject(this._exitError("writing to the connection"));
      return this.#wire.send(data);
    }
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

  // The command methods below call `this._call` and `this.request` only, so a SessionHandle borrows
  // them unchanged (its `request` adds the handle).
  async _call(type, fields = {}, timeoutMs) {
    const cmd = { type };
    for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== null) cmd[k] = v;
    const rec = await this.request(cmd, { timeoutMs });
    return rec.data;
  }

  // ---- the 33 commands (options object last; `timeoutMs` per call) ----
  /** pi_rpc: `limits` bound the run (agent_end.limit says which ended it); with `outputSchema` the final answer is JSON (agent_end.output). */
  async prompt(message, { images, streamingBehavior, limits, outputSchema, timeoutMs } = {}) {
    return (await this._call("prompt", { message, images, streamingBehavior, limits, outputSchema }, timeoutMs))?.disposition;
  }
  async steer(message, { images, limits, timeoutMs } = {}) {
    return (await this._call("steer", { message, images, limits }, timeoutMs))?.disposition;
  }
  async followUp(message, { images, limits, timeoutMs } = {}) {
    return (await this._call("follow_up", { message, images, limits }, timeoutMs))?.disposition;
  }
  /** Resolves after the run settled: "aborted" or "idle" from pi_rpc, null from upstream (no data). */
  async abort({ timeoutMs } = {}) { return (await this._call("abort", {}, timeoutMs))?.outcome ?? null; }
  clearQueue({ timeoutMs } = {}) { return this._call("clear_queue", {}, timeoutMs); }
  newSession({ parentSession, timeoutMs } = {}) { return this._call("new_session", { parentSession }, timeoutMs); }
  getState({ timeoutMs } = {}) { return this._call("get_state", {}, timeoutMs); }
  setModel(provider, modelId, { timeoutMs } = {}) { return this._call("set_model", { provider, modelId }, timeoutMs); }
  cycleModel({ timeoutMs } = {}) { return this._call("cycle_model", {}, timeoutMs); }
  async getAvailableModels({ timeoutMs } = {}) { return (await this._call("get_available_models", {}, timeoutMs)).models; }
  async setThinkingLevel(level, { timeoutMs } = {}) { await this._call("set_thinking_level", { level }, timeoutMs); }
  cycleThinkingLevel({ timeoutMs } = {}) { return this._call("cycle_thinking_level", {}, timeoutMs); }
  async getAvailableThinkingLevels({ timeoutMs } = {}) {
    return (await this._call("get_available_thinking_levels", {}, timeoutMs)).levels;
  }
  async setSteeringMode(mode, { timeoutMs } = {}) { await this._call("set_steering_mode", { mode }, timeoutMs); }
  async setFollowUpMode(mode, { timeoutMs } = {}) { await this._call("set_follow_up_mode", { mode }, timeoutMs); }
  compact({ customInstructions, timeoutMs } = {}) { return this._call("compact", { customInstructions }, timeoutMs); }
  async setAutoCompaction(enabled, { timeoutMs } = {}) { await this._call("set_auto_compaction", { enabled }, timeoutMs); }
  async setAutoRetry(enabled, { timeoutMs } = {}) { await this._call("set_auto_retry", { enabled }, timeoutMs); }
  async abortRetry({ timeoutMs } = {}) { await this._call("abort_retry", {}, timeoutMs); }
  bash(command, { excludeFromContext, timeoutMs } = {}) { return this._call("bash", { command, excludeFromContext }, timeoutMs); }
  async abortBash({ timeoutMs } = {}) { await this._call("abort_bash", {}, timeoutMs); }
  getSessionStats({ timeoutMs } = {}) { return this._call("get_session_stats", {}, timeoutMs); }
  async exportHtml({ outputPath, timeoutMs } = {}) { return (await this._call("export_html", { outputPath }, timeoutMs)).path; }
  switchSession(sessionPath, { timeoutMs } = {}) { return this._call("switch_session", { sessionPath }, timeoutMs); }
  fork(entryId, { timeoutMs } = {}) { return this._call("fork", { entryId }, timeoutMs); }
  clone({ timeoutMs } = {}) { return this._call("clone", {}, timeoutMs); }
  async getForkMessages({ timeoutMs } = {}) { return (await this._call("get_fork_messages", {}, timeoutMs)).messages; }
  getEntries({ since, timeoutMs } = {}) { return this._call("get_entries", { since }, timeoutMs); }
  getTree({ timeoutMs } = {}) { return this._call("get_tree", {}, timeoutMs); }
  async getLastAssistantText({ timeoutMs } = {}) {
    return (await this._call("get_last_assistant_text", {}, timeoutMs))?.text ?? null;
  }
  async setSessionName(name, { timeoutMs } = {}) { await this._call("set_session_name", { name }, timeoutMs); }
  async getMessages({ timeoutMs } = {}) { return (await this._call("get_messages", {}, timeoutMs)).messages; }
  async getCommands({ timeoutMs } = {}) { return (await this._call("get_commands", {}, timeoutMs)).commands; }

  // ---- beyond upstream 1.6 (pi_rpc; protocol/README.md "Beyond upstream") ----
  getProtocolInfo({ timeoutMs } = {}) { return this._call("get_protocol_info", {}, timeoutMs); }
  /**
   * Turn seq / runId / handle on or off (undefined leaves one as it is); resolves to the effective options.
   * `handle: true` tags the "default" session's events with "handle" too (other sessions' always are).
   */
  setEventOptions({ seq, runId, handle, timeoutMs } = {}) {
    return this._call("set_event_options", { seq, runId, handle }, timeoutMs);
  }
  /** {events, lastSeq, truncated}: the events numbered above sinceSeq (seq must be on). */
  getEvents(sinceSeq, { timeoutMs } = {}) { return this._call("get_events", { sinceSeq }, timeoutMs); }
  async listSessions({ scope, limit, query, timeoutMs } = {}) {
    return (await this._call("list_sessions", { scope, limit, query }, timeoutMs)).sessions;
  }
  async renameSession(sessionPath, name, { timeoutMs } = {}) { await this._call("rename_session", { sessionPath, name }, timeoutMs); }
  async deleteSession(sessionPath, { timeoutMs } = {}) { await this._call("delete_session", { sessionPath }, timeoutMs); }
  navigateTree(targetId, { summarize, customInstructions, timeoutMs } = {}) {
    return this._call("navigate_tree", { targetId, summarize, customInstructions }, timeoutMs);
  }
  /** Label an entry (shown by getTree); null or "" clears it (null is sent as JSON null). */
  async setLabel(entryId, label, { timeoutMs } = {}) {
    await this.request({ type: "set_label", entryId, label: label ?? null }, { timeoutMs });
  }
  /** Every known provider's credential state ({provider, name, authType, status, expiresAt?, source?, loginMethods}); never a secret. */
  async getAuthStatus({ provider, timeoutMs } = {}) {
    return (await this._call("get_auth_status", { provider }, timeoutMs)).providers;
  }
  /**
   * Log in to a provider in the server; the flow asks through extension UI dialogs (answer them
   * in your onUiRequest handler). Resolves with what was stored ({provider, authType, expiresAt?}).
   * It waits for the user: pass a long timeoutMs; abort() cancels it.
   */
  authLogin(provider, { method, timeoutMs } = {}) {
    return this._call("auth_login", { provider, method }, timeoutMs);
  }
  /** Remove a provider's stored credential: {provider, removed, authType?}. */
  authLogout(provider, { timeoutMs } = {}) {
    return this._call("auth_logout", { provider }, timeoutMs);
  }

  // ---- tools (pi_rpc: protocol/README.md "Host tools, tool control and run limits") ----
  /** Replace the client's own tools ({name, description, parameters}[]); resolves to their names. hostTool() answers calls for you. */
  async setHostTools(tools, { timeoutMs } = {}) { return (await this._call("set_host_tools", { tools }, timeoutMs)).tools; }
  /** Every tool: {name, description, parameters, source: "builtin"|"extension"|"mcp"|"host", active}[]. */
  async getTools({ timeoutMs } = {}) { return (await this._call("get_tools", {}, timeoutMs)).tools; }
  /** Make exactly `names` active; resolves to the active names (an unknown name rejects). */
  async setActiveTools(names, { timeoutMs } = {}) { return (await this._call("set_active_tools", { names }, timeoutMs)).activeTools; }

  // ---- model scope and reload (pi_rpc: protocol/README.md "Model scope and reload") ----
  /** The "provider/id" keys model cycling goes through ([]: every available model). */
  async getScopedModels({ timeoutMs } = {}) { return (await this._call("get_scoped_models", {}, timeoutMs)).models; }
  /** Set the cycling scope (save: also write enabledModels to settings.json); resolves to the scope. */
  async setScopedModels(models, { save, timeoutMs } = {}) { return (await this._call("set_scoped_models", { models, save }, timeoutMs)).models; }
  /** Reload skills, prompts, extensions and context files as /reload does; resolves to its warnings. */
  async reload({ timeoutMs } = {}) { return (await this._call("reload", {}, timeoutMs)).warnings; }
  /**
   * Register `handler(args, call)` as a tool the model can call (set_host_tools with every tool
   * registered for the session so far) and answer its host_tool_requests: the handler returns (or
   * resolves to) a string, content blocks, or {content, isError?, details?}; a throw is an error
   * result. `call.update(content)` reports progress; `call.signal` aborts when the server cancels the
   * call (abort, --host-tool-timeout), and a cancelled call's answer is not sent.
   */
  async hostTool(name, parameters, handler, { description = "", timeoutMs } = {}) {
    const client = this.client ?? this;
    const handle = this.client ? this.handle : DEFAULT_HANDLE;
    const runner = client._hostTools ??= new HostToolRunner(client);
    await runner.register(handle, { name, description, parameters }, handler, (tools) => this.setHostTools(tools, { timeoutMs }));
  }

  // ---- session handles (pi_rpc beyond upstream, issue 24) ----
  /**
   * Host another session in this process (open_session): a new one, or the one at `sessionPath`;
   * `model` is "provider/id". Resolves to its SessionHandle, whose methods and events are that session's.
   */
  async openSession({ cwd, sessionPath, model, thinkingLevel, noSession, timeoutMs } = {}) {
    const data = await this._call("open_session", { cwd, sessionPath, model, thinkingLevel, noSession }, timeoutMs);
    return new SessionHandle(this, data ?? {});
  }
  /** The hosted sessions: {handle, sessionId, sessionFile, cwd, model, isStreaming, pendingMessageCount}[]. */
  async listOpenSessions({ timeoutMs } = {}) { return (await this._call("list_open_sessions", {}, timeoutMs)).sessions; }
  /** close_session: abort, settle, flush and release the session at `handle` (not "default"). */
  async closeSession(handle, { timeoutMs } = {}) { return await this._call("close_session", { handle }, timeoutMs); }
  /** A handle object for a session already open ("default", or one from listOpenSessions), without a request. */
  sessionHandle(handle = DEFAULT_HANDLE) { return new SessionHandle(this, { handle }); }

  /** The subscription promptAndWait reads: the "default" session's records. */
  _runEvents() { return this.events({ handle: DEFAULT_HANDLE }); }

  /**
   * Prompt and collect events until `agent_settled` (not agent_end: retries, compaction and queued
   * follow-ups come after it). A "handled" prompt resolves at once with no events. With several
   * sessions hosted, it is the "default" session's run (its records only).
   */
  async promptAndWait(message, { images, streamingBehavior, timeoutMs } = {}) {
    const budget = timeoutMs === undefined ? this.options.defaultTimeoutMs : timeoutMs;
    const deadline = budget == null ? null : Date.now() + budget;
    const stream = this._runEvents();
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
    if (this.#wire) {
      this.#closing = true;
      this.#wire.close();
      if (!this.#ended) this.#onEnd();
      return null;
    }
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

const camel = (t) => t.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

/** Method names a SessionHandle borrows from PiRpcClient: every per-session command, and promptAndWait. */
export const SESSION_METHODS = Object.freeze([
  ...[...COMMAND_TYPES, ...BEYOND_UPSTREAM_COMMAND_TYPES].filter((t) => !PROCESS_COMMAND_TYPES.includes(t)).map(camel),
  "promptAndWait", "hostTool",
]);

const contentOf = (value) => (typeof value === "string" ? [{ type: "text", text: value }] : Array.isArray(value) ? value : [{ type: "text", text: String(value) }]);

/** The answers to host_tool_requests of the tools registered with hostTool(), per session handle. */
class HostToolRunner {
  constructor(client) {
    this.client = client;
    this.tools = new Map(); // handle -> Map(name -> {spec, handler})
    this.calls = new Map(); // request id -> AbortController
    client.onEvent((rec) => this.onRecord(rec));
  }
  async register(handle, spec, handler, send) {
    const tools = new Map(this.tools.get(handle) ?? []);
    tools.set(spec.name, { spec, handler });
    await send([...tools.values()].map((t) => t.spec));
    this.tools.set(handle, tools);
  }
  onRecord(rec) {
    if (rec.type === "host_tool_cancelled") this.calls.get(rec.id)?.abort();
    if (rec.type !== "host_tool_request") return;
    const entry = this.tools.get(rec.handle ?? DEFAULT_HANDLE)?.get(rec.name);
    const controller = new AbortController();
    this.calls.set(rec.id, controller);
    const call = {
      id: rec.id, toolCallId: rec.toolCallId, name: rec.name, arguments: rec.arguments ?? {}, handle: rec.handle ?? DEFAULT_HANDLE,
      signal: controller.signal,
      update: (content, details) => controller.signal.aborted ? Promise.resolve()
        : this.client.notify({ type: "host_tool_update", id: rec.id, content: contentOf(content), ...(details != null ? { details } : {}) }),
    };
    (async () => {
      let answer;
      try {
        if (!entry) throw new Error(`No handler for ${rec.name}`);
        const value = await entry.handler(call.arguments, call);
        answer = value && typeof value === "object" && !Array.isArray(value) && "content" in value
          ? { content: contentOf(value.content), ...(value.isError != null ? { isError: !!value.isError } : {}), ...(value.details != null ? { details: value.details } : {}) }
          : { content: contentOf(value) };
      } catch (err) {
        answer = { content: contentOf(String(err?.message ?? err)), isError: true };
      }
      this.calls.delete(rec.id);
      if (!controller.signal.aborted) await this.client.notify({ type: "host_tool_result", id: rec.id, ...answer }).catch(() => {});
    })();
  }
}

/**
 * One session hosted by the client's process, addressed by `handle` (PiRpcClient.openSession). It has
 * the client's per-session command methods (borrowed from PiRpcClient.prototype: each request it sends
 * carries `handle`), events()/onEvent() of its own records, and close() (close_session).
 * sessionId/sessionFile/cwd are what open_session answered; newSession/switchSession/fork give the
 * handle another session (getState() tells the current one).
 */
export class SessionHandle {
  constructor(client, info) {
    this.client = client;
    this.handle = String(info.handle);
    this.sessionId = info.sessionId;
    this.sessionFile = info.sessionFile;
    this.cwd = info.cwd;
    this.closed = false;
  }
  get options() { return this.client.options; }
  /** client.request with `handle` set (unless the command has one). */
  request(command, opts = {}) { return this.client.request({ ...command, handle: command.handle ?? this.handle }, opts); }
  /** This handle's records from now on. */
  events() { return this.client.events({ handle: this.handle }); }
  onEvent(listener) { return this.client.onEvent(listener, { handle: this.handle }); }
  _runEvents() { return this.events(); }
  /** close_session (idempotent); "default" cannot be closed. */
  async close({ timeoutMs } = {}) {
    if (this.closed) return;
    await this.client.closeSession(this.handle, { timeoutMs });
    this.closed = true;
  }
}
for (const name of ["_call", ...SESSION_METHODS]) {
  Object.defineProperty(SessionHandle.prototype, name, {
    value: PiRpcClient.prototype[name], writable: true, configurable: true, enumerable: false,
  });
}

/**
 * Connect to a running `pi --mode rpc --listen <address>` server: `unix:<path>`, `tcp:<host>:<port>`,
 * `ws://…` (Node 22+). `token` for TCP and WebSocket; `reconnect: true` reconnects when the connection
 * drops and re-attaches each session with `since` = the last seq received (no gap, no duplicate).
 */
export async function connect(address, options = {}) {
  const client = new PiRpcClient({ defaultTimeoutMs: 60_000, ...options, address });
  return client.start();
}

export default PiRpcClient;
