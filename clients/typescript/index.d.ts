// Hand-written API of the client (src/index.mjs). Protocol shapes come from types/protocol.d.ts, which is
// GENERATED from protocol/schema/*.json by scripts/gen-types.mjs.
import type { ChildProcess } from "node:child_process";
import type {
  AgentMessage, BashResult, Command, CompactionResult, Event, EventOptionsData, EventsData, ImageContent, ModelInfo,
  CloseSessionData, NavigateTreeData, OpenSessionData, OpenSessionSummary, ProtocolInfoData, Response, SessionEntry, SessionState, SessionStats, SessionSummary, SessionTreeNode,
  SlashCommand, HostToolDefinition, ToolInfo, RunLimits,
} from "./types/protocol.js";

export * from "./types/protocol.js";

export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";
export type QueueMode = "all" | "one-at-a-time";
export type PromptDisposition = "started" | "queued" | "handled";
export type QueuedDisposition = "queued" | "handled";

/** Every stdout record that is not a correlated response: session events, extension UI requests, stray responses. */
export type RpcRecord = Event | Response;

export declare const COMMAND_TYPES: readonly Command["type"][];
/** Commands beyond upstream 1.6 (pi_rpc only). */
export declare const BEYOND_UPSTREAM_COMMAND_TYPES: readonly Command["type"][];
/** open_session, close_session, list_open_sessions (pi_rpc: many sessions in one process). */
export declare const SESSION_HANDLE_COMMAND_TYPES: readonly string[];
/** Commands of the process, not of one session (a SessionHandle does not have them). */
export declare const PROCESS_COMMAND_TYPES: readonly string[];
/** The handle of the process's first session. */
export declare const DEFAULT_HANDLE: "default";
/** Method names a SessionHandle borrows from PiRpcClient. */
export declare const SESSION_METHODS: readonly SessionMethodName[];
/** Predicate: the records of one handle (for "default" also the untagged ones). */
export declare function belongsTo(handle: string): (record: RpcRecord) => boolean;

export declare class RpcError extends Error {}
export declare class RpcCommandError extends RpcError {
  readonly response: Response; readonly command?: string; readonly error: string;
  constructor(response: Response);
}
export declare class RpcTimeoutError extends RpcError {
  readonly what: string; readonly timeoutMs: number;
  constructor(what: string, timeoutMs: number);
}
export declare class RpcProcessExited extends RpcError {
  readonly exitCode: number | null; readonly signal: string | null; readonly stderrTail: string;
  constructor(exitCode: number | null, signal: string | null, stderrTail: string, context?: string);
}

/** Events after `sinceSeq` are no longer in the server's ring (get_events: truncated): rebuild from state. */
export declare class EventsLost extends RpcError {
  readonly sinceSeq: number; readonly untilSeq: number;
  constructor(sinceSeq: number, untilSeq: number);
}

export declare function encodeRecord(obj: unknown): string;
export declare class LineSplitter {
  feed(chunk: Buffer): Buffer[];
  rest(): Buffer;
}

export declare class EventStream implements AsyncIterable<RpcRecord> {
  readonly closed: boolean;
  next(timeoutMs?: number): Promise<RpcRecord>;
  waitFor(match: string | ((r: RpcRecord) => boolean), timeoutMs?: number): Promise<RpcRecord>;
  drain(): RpcRecord[];
  [Symbol.asyncIterator](): AsyncIterator<RpcRecord>;
  close(): void;
}

/** Gap bookkeeping without I/O for seq-numbered records (pi_rpc beyond upstream). */
export declare class SeqTracker {
  static readonly DELIVER: "deliver"; static readonly OLD: "old"; static readonly GAP: "gap";
  lastSeq: number;
  constructor(lastSeq?: number);
  noteResponse(seq: number): void;
  classify(event: { seq?: number }): "deliver" | "old" | "gap";
  /** Missed events of a get_events answer (below untilSeq); throws EventsLost when truncated. */
  fill(replay: Partial<EventsData>, untilSeq?: number): RpcRecord[];
}

/** Events in seq order, each once, gaps filled from get_events (PiRpcClient.sequencedEvents). */
export declare class SequencedEventStream implements AsyncIterable<RpcRecord> {
  readonly closed: boolean;
  /** Records a bounded buffer let go (then fetched again with get_events). */
  readonly dropped: number;
  /** Events delivered from get_events answers. */
  readonly replayed: number;
  /** The last number accounted for: store it to resume later (`since`). */
  readonly lastSeq: number;
  readonly tracker: SeqTracker;
  next(timeoutMs?: number): Promise<RpcRecord>;
  [Symbol.asyncIterator](): AsyncIterator<RpcRecord>;
  close(): void;
}

export interface PiRpcClientOptions {
  /** Executable, e.g. "pi" or a python / node path (not with `address`). */
  command?: string;
  /** A running `pi --mode rpc --listen` server instead of a child: unix:<path>, tcp:<host>:<port>, ws://… */
  address?: string;
  /** The listen token (TCP and WebSocket). */
  token?: string;
  /** Reconnect when the connection drops, re-attaching each session from the last seq received. */
  reconnect?: boolean;
  reconnectForMs?: number;
  connectTimeoutMs?: number;
  /** Arguments, e.g. ["--mode", "rpc", "--no-session"]. */
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** Start from process.env (default true). */
  inheritEnv?: boolean;
  /** Per-call default; null = wait forever (default 60000). */
  defaultTimeoutMs?: number | null;
  stderrTailBytes?: number;
  onStderr?: (chunk: Buffer) => void;
}
export interface CallOptions { timeoutMs?: number | null }
export interface OpenSessionOptions extends CallOptions {
  /** Working directory of the session's tools (default: the process's). */
  cwd?: string;
  /** Open this session file instead of a new session (refused while another writer holds it). */
  sessionPath?: string;
  /** "provider/id". */
  model?: string;
  thinkingLevel?: ThinkingLevel;
  /** No session file (in-memory only). */
  noSession?: boolean;
}
export interface PromptResult { response: Response; disposition: PromptDisposition | undefined; events: RpcRecord[] }

export interface AttachData { replayed: number; complete: boolean }
export interface ReconnectInfo extends AttachData { handle: string; since: number }

export declare class PiRpcClient {
  constructor(options: PiRpcClientOptions);
  /** Connections (`address`): the sessions attached, the last seq received, each reconnect. */
  readonly attached: Set<string>;
  readonly lastSeq: number;
  readonly reconnects: ReconnectInfo[];
  attach(handle: string, opts?: CallOptions & { since?: number }): Promise<AttachData>;
  detach(handle: string, opts?: CallOptions): Promise<void>;
  readonly process: ChildProcess | null;
  readonly pid: number | undefined;
  readonly exitCode: number | null;
  /** Captured stderr tail. */
  readonly stderr: string;
  readonly unmatchedResponses: Response[];
  readonly protocolErrors: { line: string; reason: string }[];
  start(): Promise<this>;
  close(opts?: { timeoutMs?: number }): Promise<number | null>;
  /** With `handle`: that session's records only. */
  events(opts?: { handle?: string }): EventStream;
  onEvent(listener: (record: RpcRecord) => void, opts?: { handle?: string }): () => void;
  sendRaw(data: string | Uint8Array): Promise<void>;
  notify(record: Record<string, unknown>): Promise<void>;
  newId(): string;
  request(command: Command | Record<string, unknown>, opts?: CallOptions & { check?: boolean }): Promise<Response>;
  promptAndWait(message: string, opts?: CallOptions & { images?: ImageContent[]; streamingBehavior?: "steer" | "followUp" }): Promise<PromptResult>;

  prompt(message: string, opts?: CallOptions & { images?: ImageContent[]; streamingBehavior?: "steer" | "followUp"; limits?: RunLimits; outputSchema?: Record<string, unknown> }): Promise<PromptDisposition>;
  steer(message: string, opts?: CallOptions & { images?: ImageContent[]; limits?: RunLimits }): Promise<QueuedDisposition>;
  followUp(message: string, opts?: CallOptions & { images?: ImageContent[]; limits?: RunLimits }): Promise<QueuedDisposition>;
  abort(opts?: CallOptions): Promise<"aborted" | "idle" | null>;
  clearQueue(opts?: CallOptions): Promise<{ steering: string[]; followUp: string[] }>;
  newSession(opts?: CallOptions & { parentSession?: string }): Promise<{ cancelled: boolean }>;
  getState(opts?: CallOptions): Promise<SessionState>;
  setModel(provider: string, modelId: string, opts?: CallOptions): Promise<ModelInfo>;
  cycleModel(opts?: CallOptions): Promise<{ model: ModelInfo; thinkingLevel: ThinkingLevel; isScoped: boolean } | null>;
  getAvailableModels(opts?: CallOptions): Promise<ModelInfo[]>;
  setThinkingLevel(level: ThinkingLevel, opts?: CallOptions): Promise<void>;
  cycleThinkingLevel(opts?: CallOptions): Promise<{ level: ThinkingLevel } | null>;
  getAvailableThinkingLevels(opts?: CallOptions): Promise<ThinkingLevel[]>;
  setSteeringMode(mode: QueueMode, opts?: CallOptions): Promise<void>;
  setFollowUpMode(mode: QueueMode, opts?: CallOptions): Promise<void>;
  compact(opts?: CallOptions & { customInstructions?: string }): Promise<CompactionResult>;
  setAutoCompaction(enabled: boolean, opts?: CallOptions): Promise<void>;
  setAutoRetry(enabled: boolean, opts?: CallOptions): Promise<void>;
  abortRetry(opts?: CallOptions): Promise<void>;
  bash(command: string, opts?: CallOptions & { excludeFromContext?: boolean }): Promise<BashResult>;
  abortBash(opts?: CallOptions): Promise<void>;
  getSessionStats(opts?: CallOptions): Promise<SessionStats>;
  exportHtml(opts?: CallOptions & { outputPath?: string }): Promise<string>;
  switchSession(sessionPath: string, opts?: CallOptions): Promise<{ cancelled: boolean }>;
  fork(entryId: string, opts?: CallOptions): Promise<{ text?: string; cancelled: boolean }>;
  clone(opts?: CallOptions): Promise<{ cancelled: boolean }>;
  getForkMessages(opts?: CallOptions): Promise<{ entryId: string; text: string }[]>;
  getEntries(opts?: CallOptions & { since?: string }): Promise<{ entries: SessionEntry[]; leafId: string | null }>;
  getTree(opts?: CallOptions): Promise<{ tree: SessionTreeNode[]; leafId: string | null }>;
  getLastAssistantText(opts?: CallOptions): Promise<string | null>;
  setSessionName(name: string, opts?: CallOptions): Promise<void>;
  getMessages(opts?: CallOptions): Promise<AgentMessage[]>;
  getCommands(opts?: CallOptions): Promise<SlashCommand[]>;

  // beyond upstream 1.6 (pi_rpc; protocol/README.md "Beyond upstream"). abort() resolves to the outcome
  // ("aborted" | "idle") from pi_rpc and to null from upstream.
  getProtocolInfo(opts?: CallOptions): Promise<ProtocolInfoData>;
  /** `handle: true` tags the "default" session's events with "handle" too. */
  setEventOptions(opts?: CallOptions & { seq?: boolean; runId?: boolean; handle?: boolean }): Promise<EventOptionsData>;
  getEvents(sinceSeq: number, opts?: CallOptions): Promise<EventsData>;
  listSessions(opts?: CallOptions & { scope?: "cwd" | "all"; limit?: number; query?: string }): Promise<SessionSummary[]>;
  renameSession(sessionPath: string, name: string, opts?: CallOptions): Promise<void>;
  deleteSession(sessionPath: string, opts?: CallOptions): Promise<void>;
  navigateTree(targetId: string, opts?: CallOptions & { summarize?: boolean; customInstructions?: string }): Promise<NavigateTreeData>;
  setLabel(entryId: string, label: string | null, opts?: CallOptions): Promise<void>;
  getAuthStatus(opts?: CallOptions & { provider?: string }): Promise<ProviderAuthStatus[]>;
  authLogin(provider: string, opts?: CallOptions & { method?: string }): Promise<AuthLoginResult>;
  authLogout(provider: string, opts?: CallOptions): Promise<AuthLogoutResult>;
  /** The client's own tools (pi_rpc): replace them; hostTool() registers one and answers its calls. */
  setHostTools(tools: HostToolDefinition[], opts?: CallOptions): Promise<string[]>;
  getTools(opts?: CallOptions): Promise<ToolInfo[]>;
  setActiveTools(names: string[], opts?: CallOptions): Promise<string[]>;
  getScopedModels(opts?: CallOptions): Promise<string[]>;
  setScopedModels(models: string[], opts?: CallOptions & { save?: boolean }): Promise<string[]>;
  reload(opts?: CallOptions): Promise<string[]>;
  hostTool(name: string, parameters: Record<string, unknown>, handler: HostToolHandler, opts?: CallOptions & { description?: string }): Promise<void>;
  /** Turn seq on (runId too when given) and read events in order with gap recovery; `since` resumes. */
  sequencedEvents(opts?: CallOptions & { maxBuffer?: number; since?: number; runId?: boolean }): Promise<SequencedEventStream>;

  // many sessions in one process (pi_rpc)
  /** Host another session in this process; resolves to its handle object. */
  openSession(opts?: OpenSessionOptions): Promise<SessionHandle>;
  listOpenSessions(opts?: CallOptions): Promise<OpenSessionSummary[]>;
  /** Resolves to undefined, or `{unwrittenEntries, error}` when a write fault kept entries off its file. */
  closeSession(handle: string, opts?: CallOptions): Promise<CloseSessionData | undefined>;
  /** A handle object for a session already open ("default" by default), without a request. */
  sessionHandle(handle?: string): SessionHandle;
}

/** Per-session methods of PiRpcClient, which a SessionHandle has too (bound to its handle). */
export type SessionMethodName = Exclude<
  keyof PiRpcClient,
  | "process" | "pid" | "exitCode" | "stderr" | "unmatchedResponses" | "protocolErrors" | "start" | "close"
  | "events" | "onEvent" | "sendRaw" | "notify" | "newId" | "request" | "getProtocolInfo" | "setEventOptions"
  | "getEvents" | "sequencedEvents" | "openSession" | "listOpenSessions" | "closeSession" | "sessionHandle"
>;

/**
 * One session hosted by the client's process (PiRpcClient.openSession): the client's per-session
 * command methods (each request carries `handle`), its own events, close() = close_session.
 */
export interface SessionHandle extends Pick<PiRpcClient, SessionMethodName> {}
export declare class SessionHandle {
  constructor(client: PiRpcClient, info: Partial<OpenSessionData> & { handle: string });
  readonly client: PiRpcClient;
  readonly handle: string;
  /** As open_session answered (newSession/switchSession/fork change the session; ask getState()). */
  readonly sessionId: string | undefined;
  readonly sessionFile: string | null | undefined;
  readonly cwd: string | undefined;
  readonly closed: boolean;
  request(command: Command | Record<string, unknown>, opts?: CallOptions & { check?: boolean }): Promise<Response>;
  /** This handle's records from now on. */
  events(): EventStream;
  onEvent(listener: (record: RpcRecord) => void): () => void;
  /** close_session (idempotent); "default" cannot be closed. */
  close(opts?: CallOptions): Promise<void>;
}
export default PiRpcClient;

export interface ProviderAuthStatus {
  provider: string;
  name: string;
  authType: "oauth" | "api_key" | null;
  status: "ready" | "expiring" | "expired" | "missing" | "error";
  expiresAt?: number;
  source?: "runtime" | "auth.json" | "models.json" | "environment" | "ambient";
  loginMethods: ("oauth" | "api_key")[];
}
export interface AuthLoginResult { provider: string; authType: "oauth" | "api_key"; expiresAt?: number }
export interface AuthLogoutResult { provider: string; removed: boolean; authType?: "oauth" | "api_key" }

export interface HostToolCall {
  id: string; toolCallId: string; name: string; arguments: Record<string, unknown>; handle: string;
  /** Aborted when the server cancels the call (abort, --host-tool-timeout). */
  signal: AbortSignal;
  update(content: string | Record<string, unknown>[], details?: unknown): Promise<void>;
}
export type HostToolAnswer = string | Record<string, unknown>[] | { content: string | Record<string, unknown>[]; isError?: boolean; details?: unknown };
export type HostToolHandler = (args: Record<string, any>, call: HostToolCall) => HostToolAnswer | Promise<HostToolAnswer>;
/** Connect to a running `pi --mode rpc --listen <address>` server. */
export declare function connect(address: string, options?: Omit<PiRpcClientOptions, "address" | "command">): Promise<PiRpcClient>;
