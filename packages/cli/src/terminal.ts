import { redactSecrets } from '@bridle/llm/secrets'
import pc from 'picocolors'

/** Where the CLI writes: stdout for the answer, stderr for what Bridle says about it. */
export interface Io {
  out(text: string): void
  err(text: string): void
  /** Colors only on a TTY (and never when NO_COLOR is set), so piped output stays plain. */
  color: boolean
  /**
   * stdout is a terminal: show the live status line while a request is in flight and a summary after each turn.
   * Never on a pipe or a file, whatever NO_COLOR says.
   */
  tty?: boolean
  /** The terminal's width when stdout is one: `inspect --step` cuts long lines to it. */
  columns?: number
}

export const processIo = (): Io => ({
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
  tty: Boolean(process.stdout.isTTY),
  columns: process.stdout.isTTY ? process.stdout.columns : undefined,
})

export interface Paint {
  dim(text: string): string
  bold(text: string): string
  red(text: string): string
  green(text: string): string
  cyan(text: string): string
  yellow(text: string): string
}

/** Color helpers that fall back to plain text when the output is not a terminal. */
export function paint(io: Io): Paint {
  const plain = (text: string) => text
  return io.color
    ? { dim: pc.dim, bold: pc.bold, red: pc.red, green: pc.green, cyan: pc.cyan, yellow: pc.yellow }
    : { dim: plain, bold: plain, red: plain, green: plain, cyan: plain, yellow: plain }
}

/**
 * A time as every command and the viewer show it: `YYYY-MM-DD HH:MM:SS` in UTC (sortable, the same on every machine;
 * `@bridle/view`'s pages use the same form).
 */
export const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')

/**
 * One line of text, shortened to `max` characters with an ellipsis. Known secrets are redacted before the cut, so a
 * secret across the cut leaves no prefix (docs/security.md#what-is-shown).
 */
export function oneLine(text: string, max = 100): string {
  const flat = redactSecrets(text).replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}
