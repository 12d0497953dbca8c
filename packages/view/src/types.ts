/**
 * The viewer's vocabulary: the JSON the server (or an `--html` file) hands the page. The server builds these from
 * a session log (`model/*.ts`); the page only renders them, so everything shown is computed in one place.
 */

/** Whether every request of a session verifies against its `request/digest`. */
export type VerifyState =
  /** every digested request rebuilds to its digest */
  | 'ok'
  /** at least one request does not */
  | 'failed'
  /** the log has no digested request (old logs, or no step reached the model) */
  | 'none'

/** One row of the sessions page. */
export interface SessionSummary {
  id: string
  createdAt: number
  /** Time of the log's last event (the header's creation time for an empty log). */
  lastActivity: number
  turns: number
  /** Digested requests. */
  requests: number
  verify: VerifyState
  /** `provider/model` of the latest request or answer (as `bridle sessions` shows it). */
  model?: string
  /** The first prompt a user sent. */
  firstPrompt?: string
  /** Set when the stored log could not be read; the other counts are then zero. */
  error?: string
}

export interface TokenUsageView {
  /** Input tokens the provider did not serve from its cache. */
  input: number
  /** Input tokens served from the provider's prompt cache (`cacheReadTokens`). */
  cached: number
  output: number
  cacheWrite?: number
  reasoning?: number
}

export interface ToolCallView {
  callId: string
  name: string
  arguments: string
  /** The recorded result, absent while the tool runs (or when it never ran). */
  result?: { text: string; isError: boolean; code?: string }
}

/** The verification of one request, from `verifyDigests`. */
export interface VerifyView {
  ok: boolean
  mismatched: string[]
  error?: string
}

/** One model request of a step (a retried step has several attempts). */
export interface RequestRow {
  /** Seq of its `request/digest`: the key of its request view. */
  seq: number
  turn: number
  step: number
  attempt: number
  provider: string
  model: string
  verify: VerifyView
  usage?: TokenUsageView
  /** Digest → the step's `assistant/message`. */
  latencyMs?: number
  /** Digest → the first streamed chunk with output. */
  firstTokenMs?: number
  /** The finish reason the model stream ended with (`stop`, `tool-calls`, `length`, `error`, ...). */
  stopReason?: string
  /** Share (0..1) of this request's prompt that is a byte-identical prefix of the previous request's. */
  prefixShare?: number
  /** One-line cause of the cache-prefix break, absent when the prefix held or for the first request. */
  breakCause?: string
  /** Set for a request sent to summarize history (compaction) rather than to answer. */
  purpose?: string
}

export interface StepRow {
  turn: number
  step: number
  startSeq: number
  startTime: number
  endSeq?: number
  requests: RequestRow[]
  toolCalls: ToolCallView[]
  /** Text the model answered with, if any. */
  answer?: string
  reasoning?: string
  /** Messages this step entered into history (prompts, follow-ups, context snapshots). */
  entered: { seq: number; role: string; source: string; text: string }[]
}

export interface TurnRow {
  turn: number
  startSeq: number
  startTime: number
  /** `completed`, `error: ...`, `aborted (user)`, ...; absent while the turn is open. */
  end?: string
  /** True for a `turn/end` written by crash repair (or computed by a reader for a turn still being written). */
  interrupted?: boolean
  steps: StepRow[]
}

/** A surface `replace` (a compaction checkpoint) and what it replaced. */
export interface ReplacementRow {
  seq: number
  time: number
  /** Seqs of the surface nodes it shadows. */
  replaced: number[]
  text: string
}

/** Everything the session page shows. */
export interface SessionView {
  summary: SessionSummary
  cwd?: string
  turns: TurnRow[]
  replacements: ReplacementRow[]
  /** Steps without a `request/digest` (stop boundaries, old logs). */
  undigested: { turn: number; step: number }[]
  events: number
}

/** A span of the system string; named when the header's section manifest says which section produced it. */
export interface SystemSpan {
  name?: string
  order?: number
  scope?: string
  start: number
  end: number
}

export interface ToolView {
  name: string
  description?: string
  /** The JSON schema of its parameters, as sent. */
  parameters: unknown
}

export type BlockView =
  | { type: 'text' | 'reasoning'; text: string }
  | { type: 'tool-call'; id: string; name: string; arguments: string }
  | { type: 'tool-result'; toolCallId: string; text: string; isError: boolean }
  | { type: 'other'; label: string }

export interface MessageView {
  role: string
  /** `user`, `model scripted/demo`, `tool result for call_1`, `plugin @bridle/system-prompt (snapshot)`. */
  source: string
  sourceKind: string
  /** The event that put this message on the surface. */
  seq?: number
  eventType?: string
  /** True when the message came from a surface `replace` (a compaction checkpoint). */
  replacement?: boolean
  blocks: BlockView[]
}

/** One line of a line diff of the system string. */
export interface DiffLine {
  kind: 'same' | 'added' | 'removed' | 'skipped'
  text: string
  /** The section the line belongs to (from the manifest of the request it comes from). */
  section?: string
}

/**
 * Where two texts first differ, as a word diff: the unchanged words before the change, what the previous text had
 * there and what the current one has, and the unchanged words after it. `bridle inspect --cache` and the viewer's
 * cache-break snippet both show this, so a changed line never reads the same on both sides.
 */
export interface ChangedSpan {
  /** Character offset of the first difference (the same in both texts: everything before it is shared). */
  offset: number
  /** Unchanged text before the change; it starts at a line start or at the start of a word. */
  before: string
  /** The previous text's words in the changed span ('' for a pure insertion). */
  removed: string
  /** The current text's words in the changed span ('' for a pure deletion). */
  added: string
  /** Unchanged text after the change, ending at a word boundary ('' when a text ends there). */
  after: string
  /** Text of the changed line before `before` was left out (earlier lines are never shown). */
  cutBefore: boolean
  /** Text after `after` (or inside a long changed span) was left out. */
  cutAfter: boolean
}

/** Where the cache prefix broke, with the word diff around its first differing byte (`changedSpan`), both sides. */
export interface PrefixBreak extends Omit<ChangedSpan, 'offset'> {
  part: 'system' | 'tools' | 'messages'
  /** UTF-8 byte offset in the serialized prompt (system, then tools as JSON, then each message as JSON). */
  byte: number
  /** One-line cause from `cachePrefixReport`: the section, tool or history change that broke it. */
  cause: string
  /** Where in the part: `line 3`, `tool read_file`, `message 5`. */
  where: string
}

export interface RequestDiffView {
  previousSeq: number
  previous: { turn: number; step: number; attempt: number }
  system: { kept: boolean; lines: DiffLine[]; sections: { kind: string; name: string }[] }
  tools: { kept: boolean; added: string[]; removed: string[]; moved: string[]; changed: string[] }
  messages: {
    kept: boolean
    /** Messages of the previous request that this one still starts with. */
    keptCount: number
    /** Indexes (0-based, in this request) of messages after the kept prefix. */
    appended: number[]
    /** Messages of the previous request after the kept prefix, which this request no longer sends as they were. */
    replaced: MessageView[]
    cause?: string
  }
  prefix: { keptBytes: number; totalBytes: number; share: number; break?: PrefixBreak }
  cachedTokens?: number
}

/** What one request sent, rebuilt from the log, and how it differs from the previous request. */
export interface RequestView {
  row: RequestRow
  sessionId: string
  header: { seq: number; reason: string; config: Record<string, unknown> }
  context?: Record<string, unknown>
  system: { text: string; spans: SystemSpan[]; named: boolean }
  tools: ToolView[]
  messages: MessageView[]
  snapshot?: { seq?: number; sections: { name: string; text: string }[]; text: string }
  diff?: RequestDiffView
  /** Prompt-cache breakpoints the adapter placed (`request/cache`), the read they predict and the provider's figures. */
  cache?: {
    policy: string
    breakpoints: string[]
    predicted: number
    read?: number
    written?: number
    miss?: string
  }
  /** Set when the request cannot be rebuilt from the log. */
  error?: string
}

/**
 * A request view as an `--html` file stores it: its messages, and its diff's replaced messages, as indexes into the
 * file's `messages` (see embedded.ts).
 */
export type StoredRequestView = Omit<RequestView, 'messages' | 'diff'> & {
  messages: number[]
  diff?: Omit<RequestDiffView, 'messages'> & {
    messages: Omit<RequestDiffView['messages'], 'replaced'> & { replaced: number[] }
  }
}

/** What an `--html` file carries: one session, its request views, and the sessions row. */
export interface EmbeddedData {
  session: SessionView
  /** Every message view its request views show, each stored once. */
  messages: MessageView[]
  requests: Record<string, StoredRequestView>
  generatedAt: number
}
