/** The reconnect policy of a server row. */
export interface ReconnectPolicy {
  readonly initialDelayMs: number
  readonly factor: number
  readonly maxDelayMs: number
}

/**
 * Delay before reconnect attempt `attempt` (1-based): `initialDelayMs × factor^(attempt − 1)`, capped at
 * `maxDelayMs`. Deterministic on purpose: one client per server, so there is no herd to spread out.
 */
export function backoffDelay(policy: ReconnectPolicy, attempt: number): number {
  const raw = policy.initialDelayMs * policy.factor ** Math.max(0, attempt - 1)
  return Math.round(Math.min(policy.maxDelayMs, raw))
}
