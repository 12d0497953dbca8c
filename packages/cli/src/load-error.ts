import { isAbsolute, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

/** How a message names a file: relative to the app folder when inside it, else absolute (one style per message). */
export type ShowPath = (file: string) => string

/** A `ShowPath` relative to `root`. */
export function showPathFrom(root: string): ShowPath {
  return (file) => {
    const path = relative(root, file)
    return path !== '' && !path.startsWith('..') && !isAbsolute(path) ? path.split(sep).join('/') : file
  }
}

const ANSI = /\x1b\[[0-9;]*m/g

interface Located {
  readonly loc?: { readonly file?: string; readonly line?: number; readonly column?: number }
  readonly id?: string
  readonly message?: string
}

/** `file:line:column` of a transform or parse error (Vite reports 0-based columns; editors count from 1). */
function at(loc: Located['loc'], fallbackFile: string | undefined, show: ShowPath): string | undefined {
  const file = loc?.file ?? fallbackFile
  if (file === undefined || loc?.line === undefined) return undefined
  return `${show(file)}:${loc.line}:${(loc.column ?? 0) + 1}`
}

/** The first line of a transform error's own words, without colors or the `[CODE]` tag. */
function firstWords(message: string): string {
  const lines = message.replace(ANSI, '').split('\n')
  const parse = lines.findIndex((line) => /Parse failed with \d+ errors?:/.test(line))
  const line = (parse >= 0 ? lines[parse + 1] : lines.find((l) => l.trim() !== '')) ?? ''
  return line.replace(/^\s*\[[A-Z_]+\]\s*/, '').trim()
}

/** The first stack frame in a local source file (not a package, not Node's own): `file:line:column`. */
function firstLocalFrame(stack: string | undefined, root: string, show: ShowPath): string | undefined {
  for (const line of (stack ?? '').split('\n').slice(1)) {
    const frame = /\(?((?:file:\/\/)?\/[^():]+):(\d+):(\d+)\)?\s*$/.exec(line.trim())
    if (!frame) continue
    const file = frame[1]!.startsWith('file://') ? fileURLToPath(frame[1]!) : frame[1]!
    if (!file.startsWith(root) || file.includes(`${sep}node_modules${sep}`)) continue
    return `${show(file)}:${frame[2]}:${frame[3]}`
  }
  return undefined
}

/**
 * What went wrong loading or starting a plugin, in one line that points at the source: `file:line:column: message`
 * for a syntax error (JavaScript or TypeScript), `message (at file:line:column)` for a throw, with the position in the
 * source as written (TypeScript included, through source maps). Absolute paths inside the app are shown relative to it.
 */
export function explainLoadError(error: unknown, root: string, show: ShowPath = showPathFrom(root)): string {
  const relativize = (text: string) => text.split(`${root}${sep}`).join('')
  if (typeof error !== 'object' || error === null) return String(error)
  const transform = (error as { errors?: Located[] }).errors?.[0]
  if (transform?.loc !== undefined) {
    const where = at(transform.loc, transform.id, show)
    const words = firstWords(transform.message ?? '')
    if (where) return `${where}: ${words}`
  }
  const located = error as Located
  if (located.loc !== undefined) {
    const where = at(located.loc, located.id, show)
    if (where) return `${where}: ${firstWords(located.message ?? '')}`
  }
  const message = relativize((error as Error).message ?? String(error))
  const frame = firstLocalFrame((error as Error).stack, root, show)
  return frame && !message.includes(frame) ? `${message} (at ${frame})` : message
}
