import { configParser, nullAsAbsent, parseConfig } from '@bridle/llm'
import { z } from 'zod'

/** Default cap on tool bodies in flight at once (`maxParallelToolCalls`). */
export const DEFAULT_MAX_PARALLEL_TOOL_CALLS = 10

/** Message every bad cap carries, from config parsing and from direct construction alike. */
const BAD_CAP_MESSAGE = 'maxParallelToolCalls must be a positive integer'

const positiveInt = z
  .number({ error: BAD_CAP_MESSAGE })
  .refine((n) => Number.isSafeInteger(n) && n >= 1, { message: BAD_CAP_MESSAGE })

/** One agent the loop starts and owns from config (see `startConfiguredAgents`). */
export const ConfiguredAgentSchema = z
  .object({
    id: z.string().min(1),
    provider: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    maxTokens: z
      .number()
      .refine((n) => Number.isSafeInteger(n) && n > 0, { message: 'agent maxTokens must be a positive safe integer' })
      .optional(),
    maxSteps: z
      .number()
      .refine((n) => Number.isSafeInteger(n) && n > 0, { message: 'agent maxSteps must be a positive safe integer' })
      .optional(),
    cwd: z.string().optional(),
    sessionId: z.string().min(1).optional(),
    resumeSessionId: z.string().min(1).optional(),
  })
  .strict()

export type ConfiguredAgent = z.infer<typeof ConfiguredAgentSchema>

function defaultVerify(): boolean {
  return process.env.NODE_ENV === 'test' || process.env.VITEST !== undefined
}

/** zod 4 schema of the AgentLoop config. `null` values count as absent (YAML `key:`). */
export const ConfigSchema = z
  .object({
    maxParallelToolCalls: nullAsAbsent(positiveInt.optional()),
    verifyRequests: nullAsAbsent(z.boolean().optional()),
    agents: nullAsAbsent(z.array(ConfiguredAgentSchema).optional()),
  })
  .strict()

export interface AgentLoopConfig {
  /** Integer ≥ 1, default 10; read at every tool-group start. */
  maxParallelToolCalls?: number
  /** Check each request against the durable log at dispatch; default on under test runners. */
  verifyRequests?: boolean
  /** Agents the loop starts and owns; default `[]`. */
  agents?: ConfiguredAgent[]
}

/** What an app passes to `ctx.plugin(AgentLoop, config)` (every field optional). */
export type AgentLoopConfigInput = z.input<typeof ConfigSchema>

export type ResolvedAgentLoopConfig = Readonly<Required<AgentLoopConfig>>

/**
 * Parses a raw AgentLoop config (a plain function, because upstream cordis calls `Config` unbound).
 * Throws `ConfigError` (plugin `agent-loop`) naming each failing field, and plain `Error`s for the
 * cross-entry rules of configured agents. Returns the resolved, frozen config.
 */
export const Config = configParser((raw?: AgentLoopConfigInput | null): ResolvedAgentLoopConfig => {
  const parsed = parseConfig('agent-loop', ConfigSchema, raw ?? {})
  const agents = (parsed.agents ?? []).map((a) => Object.freeze({ ...a }))
  validateConfiguredAgents(agents)
  return Object.freeze({
    maxParallelToolCalls: parsed.maxParallelToolCalls ?? DEFAULT_MAX_PARALLEL_TOOL_CALLS,
    verifyRequests: parsed.verifyRequests ?? defaultVerify(),
    agents: Object.freeze(agents) as ConfiguredAgent[],
  })
})

function validateConfiguredAgents(agents: readonly ConfiguredAgent[]): void {
  const exact = new Map<string, string>()
  for (const a of agents) {
    if (a.sessionId !== undefined && a.resumeSessionId !== undefined) {
      throw new Error(`agent "${a.id}": sessionId and resumeSessionId are mutually exclusive`)
    }
    const sid = a.sessionId ?? a.resumeSessionId
    if (sid === undefined) continue
    const other = exact.get(sid)
    if (other !== undefined) {
      throw new Error(`agents "${other}" and "${a.id}" use duplicate exact session identity "${sid}"`)
    }
    exact.set(sid, a.id)
  }
}
