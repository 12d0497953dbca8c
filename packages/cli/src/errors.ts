/**
 * The CLI's one error grammar: every error line starts `bridle: `, and the exit code says what kind of failure it
 * was (the table is in the README, "Exit codes").
 */

export const EXIT = {
  /** Success. */
  ok: 0,
  /** A runtime failure: a turn failed or ended early, verification failed, a session is missing. */
  failure: 1,
  /** A usage or config error, found before any model call: a bad flag, bridle.yaml, variable or path. */
  usage: 2,
  /** `inspect --verify` found no request digest to check: nothing was proven. */
  nothingVerified: 3,
} as const

/** A usage error (bad flag, bad environment variable): the CLI prints it and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}

/** A bridle.yaml that cannot be used; the message names the file and, where it can, the plugin and field (exit 2). */
export class AppConfigError extends Error {
  override name = 'AppConfigError'
}

/** A runtime failure that is not a usage error, e.g. a session that does not exist: exit 1. */
export class RuntimeFailure extends Error {
  override name = 'RuntimeFailure'
}

/** `text` as one error line: prefixed `bridle: ` unless it already is. */
export function errorLine(text: string): string {
  const line = text.startsWith('bridle: ') || text.startsWith('bridle dev: ') ? text : `bridle: ${text}`
  return line.endsWith('\n') ? line : `${line}\n`
}

/**
 * The stack of `error` and of each `cause`, for `--verbose`: a plugin's failure shows one clean line by default and
 * its stack only when asked.
 */
export function errorStack(error: unknown): string {
  const parts: string[] = []
  for (let current: unknown = error, depth = 0; current !== undefined && depth < 5; depth++) {
    if (current instanceof Error) {
      parts.push(current.stack ?? `${current.name}: ${current.message}`)
      current = current.cause
    } else {
      parts.push(String(current))
      current = undefined
    }
  }
  return parts.join('\ncaused by: ')
}
