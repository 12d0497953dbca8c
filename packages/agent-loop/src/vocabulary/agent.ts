/**
 * The default of `AgentOptions.maxSteps`: enough for long tool work, few enough that a model calling a tool at every
 * step is stopped long before the context window would stop it.
 */
export const DEFAULT_MAX_STEPS = 50

/** Per-instance model route and budget. Not persisted: a resumed agent uses what `resume` is given. */
export interface AgentOptions {
  provider?: string
  model?: string
  maxTokens?: number
  /**
   * Steps one turn may open (a positive safe integer, default {@link DEFAULT_MAX_STEPS}). A turn that has opened this
   * many and is owed another ends with `turn/end {kind: 'max-steps', steps}`; nothing further is claimed.
   */
  maxSteps?: number
}

/**
 * The agent as the vocabulary names it: what every payload's `agent` is, and what the stations read. The `Agent` class
 * (service/agent.ts) completes this interface by declaration merging, so the name means that class everywhere while
 * nothing below the service imports it (docs/README.md#inside-the-packages).
 */
export interface Agent {
  readonly id: string
  readonly options: Readonly<AgentOptions>
}
