/** Per-instance model route and budget. Not persisted: a resumed agent uses what `resume` is given. */
export interface AgentOptions {
  provider?: string
  model?: string
  maxTokens?: number
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
