/** A throwaway server that could not start; the message says what, where, as whom, and the fix. */
export class PostgresStartError extends Error {
  override readonly name = 'PostgresStartError'
  constructor(
    message: string,
    readonly details: { binary?: string; user?: string; cacheDir?: string; dataDir?: string } = {},
  ) {
    super(message)
  }
}
