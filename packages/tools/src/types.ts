import type { CallId, ContentBlock, JsonValue, UserMessage } from '@bridle/llm'
import type { ZodType } from 'zod'

/**
 * The agent a call runs for, typed structurally: `@bridle/tools` never imports `@bridle/agent-loop` (imports flow one
 * way), so any object that is the agent's scope key and carries a `session` qualifies. `Agent` satisfies it.
 */
export interface ToolAgent {
  readonly session: {
    readonly id: string
    readonly header?: { readonly cwd?: string }
  }
}

/** A raw JSON Schema object as handed to `register`; its root must declare `type: 'object'`. */
export type JsonSchemaObject = { readonly [key: string]: unknown }

/** What a tool body may return: text, content blocks, or blocks plus durable-only `meta`. */
export type ToolReturn = string | ContentBlock[] | { content: ContentBlock[]; meta?: JsonValue }

/** A tool as a plugin registers it. */
// biome-ignore lint/suspicious/noExplicitAny: an untyped definition must accept any arguments shape (parameter variance)
export interface ToolDefinition<A = any> {
  /** Must match `/^[a-zA-Z0-9_-]{1,64}$/`. */
  name: string
  description: string
  /** A zod 4 schema (converted with `z.toJSONSchema`) or a raw JSON Schema object; the root must be an object. */
  parameters: ZodType<A> | JsonSchemaObject
  execute(args: A, exec: ToolRunContext): ToolReturn | Promise<ToolReturn>
  /** Absent means exclusive. A predicate sees the validated arguments and must return exactly `true`. */
  concurrencySafe?: boolean | ((args: A) => boolean)
}

/** The frozen per-call view every hook of one call receives (the very same object). */
export interface ToolExecution {
  readonly callId: CallId
  readonly name: string
  /** Parsed, validated and deep-frozen arguments; `undefined` when they were invalid or never parsed. */
  readonly arguments: unknown
  /** The model's text, when the call came from a model. Never changed. */
  readonly rawArguments?: string
  readonly agent?: ToolAgent
  readonly signal: AbortSignal
}

/** What a tool body receives: the execution view plus two requests to the loop. */
export interface ToolRunContext extends ToolExecution {
  /** Queue an identified user message, delivered after this call's result (at the next step). */
  deferContext(message: UserMessage): void
  /**
   * Ask the loop not to call the model again for this step's results (docs/tool-calls.md#two-requests-a-body-can-make).
   */
  concludeTurn(): void
}

/** The final outcome of one call; deep-frozen. `error` is present iff `isError`. */
export interface ToolExecutionResult {
  readonly content: readonly ContentBlock[]
  readonly isError: boolean
  readonly error?: { readonly message: string; readonly info?: { readonly name: string; readonly code: string } }
  readonly meta?: JsonValue
  readonly additionalContexts?: readonly UserMessage[]
  readonly concludesTurn?: true
}

/** One call to run: from a model (`rawArguments`) or from a direct caller (`arguments`). */
export type ToolExecutionInput = { callId: CallId | string; name: string; signal: AbortSignal; agent?: ToolAgent } & (
  | { rawArguments: string; arguments?: never }
  | { arguments: JsonValue; rawArguments?: never }
)

export type PreToolDecision = { kind: 'allow' } | { kind: 'deny'; reason: string }
export type PostToolDecision =
  | { kind: 'accept'; content?: ContentBlock[]; additionalContexts?: UserMessage[] }
  | { kind: 'block'; feedback: ContentBlock[]; additionalContexts?: UserMessage[] }

/** `'parallel'` only for a visible tool with valid arguments whose `concurrencySafe` is (or returns) exactly `true`. */
export type ToolExecutionMode = 'parallel' | 'exclusive'

/** The staged form of one call, used by the agent loop's scheduler (docs/tool-calls.md#the-staged-form). */
export interface PreparedToolCall {
  readonly execution: ToolExecution
  /** `final`: stages 1–3 or a pre-execute throw ended the call; `post`: deny or abort after pre-execute. */
  readonly stage: 'dispatch' | 'post' | 'final'
  /** Stage `dispatch` only: runs `tools/execute` and the body until it settles. Rejects only on internal failures. */
  dispatch(): Promise<void>
  /** Once, after `dispatch` settled: post-execute (skipped for `final`), the cancellation override, `tools/result`. */
  finalize(): Promise<ToolExecutionResult>
}
