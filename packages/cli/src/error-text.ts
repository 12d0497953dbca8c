/**
 * The text the CLI prints for a failed command: the error's message, plus the log's path for a
 * `SessionPersistenceCorruptionError`, whose message names the damaged line but not the file.
 */
export function errorText(error: unknown): string {
  const message = (error as Error | undefined)?.message ?? String(error)
  const { name, path } = (error ?? {}) as { name?: unknown; path?: unknown }
  if (name === 'SessionPersistenceCorruptionError' && typeof path === 'string' && !message.includes(path)) {
    return `${message} (log: ${path})`
  }
  return message
}
