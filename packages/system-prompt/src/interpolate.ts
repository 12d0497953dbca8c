/**
 * The codes of interpolation errors, on each as a non-enumerable `code` (the errors stay plain `Error`s), so a failed
 * turn records the code instead of `UNKNOWN`:
 * `PROMPT_TEMPLATE` for a malformed reference, `UNKNOWN_PROMPT_VARIABLE`, and `PROMPT_VARIABLE_VALUE` for a variable
 * without a usable value in this assembly.
 */
export type InterpolationErrorCode = 'PROMPT_TEMPLATE' | 'UNKNOWN_PROMPT_VARIABLE' | 'PROMPT_VARIABLE_VALUE'

/** Every `InterpolationErrorCode`, for a caller that tells these errors from others by their code. */
export const INTERPOLATION_ERROR_CODES: ReadonlySet<string> = new Set<InterpolationErrorCode>([
  'PROMPT_TEMPLATE',
  'UNKNOWN_PROMPT_VARIABLE',
  'PROMPT_VARIABLE_VALUE',
])

function fail(message: string, code: InterpolationErrorCode): Error {
  const error = new Error(message)
  Object.defineProperty(error, 'code', { value: code, configurable: true, writable: true })
  return error
}

/** The private variable-name grammar. Error messages quote it literally. */
const VARIABLE_NAME = /^[a-z][a-z0-9_]*$/

/** Which kind of entry a text belongs to; used in error messages. */
export type InterpolationKind = 'section' | 'context'

/** Matches one complete simple group `{{…}}` at exactly `lastIndex`. */
const GROUP = /\{\{([^{}]*)\}\}/y

/** Whether `name` is a string that matches the variable-name grammar. */
export function isVariableName(name: unknown): name is string {
  return typeof name === 'string' && VARIABLE_NAME.test(name)
}

/**
 * Substitutes every `{{name}}` group of `entry.text` with its value from `variables`, strictly.
 *
 * Scans left to right; substituted values are never re-scanned. A `{{` with no `}}` anywhere after it is literal
 * prose; any other incomplete group, a group whose inner text fails the grammar, a name that is not an own key of
 * `variables`, and a key whose value is `undefined` each throw a plain `Error` naming the entry, with an `InterpolationErrorCode` as its `code`. This is what keeps
 * a reference such as `{{secret}}` from ever reaching the model verbatim.
 */
export function interpolate(
  entry: { readonly name: string; readonly text: string },
  variables: Readonly<Record<string, string | undefined>>,
  kind: InterpolationKind,
): string {
  const { name, text } = entry
  let out = ''
  let cursor = 0
  let search = 0
  for (;;) {
    const open = text.indexOf('{{', search)
    if (open < 0) break
    GROUP.lastIndex = open
    const match = GROUP.exec(text)
    if (match === null) {
      if (text.indexOf('}}', open + 2) >= 0) {
        throw fail(
          `malformed prompt variable reference at "${text.slice(open, open + 16)}…" in ${kind} "${name}" ` +
            '(references are complete simple {{name}} groups)',
          'PROMPT_TEMPLATE',
        )
      }
      search = open + 2
      continue
    }
    const inner = match[1] as string
    if (!VARIABLE_NAME.test(inner)) {
      throw fail(
        `malformed prompt variable reference "{{${inner}}}" in ${kind} "${name}" ` +
          '(variable names match /^[a-z][a-z0-9_]*$/)',
        'PROMPT_TEMPLATE',
      )
    }
    if (!Object.hasOwn(variables, inner)) {
      const keys = Object.keys(variables)
      throw fail(
        `unknown prompt variable "{{${inner}}}" in ${kind} "${name}"; ` +
          `registered variables: ${keys.length > 0 ? keys.join(', ') : '(none)'}`,
        'UNKNOWN_PROMPT_VARIABLE',
      )
    }
    const value: unknown = variables[inner]
    if (value === undefined) {
      throw fail(
        `prompt variable "{{${inner}}}" has no value for this assembly (${kind} "${name}")`,
        'PROMPT_VARIABLE_VALUE',
      )
    }
    if (typeof value !== 'string') {
      throw fail(
        `prompt variable "{{${inner}}}" must be a string or undefined, got ${describe(value)} (${kind} "${name}")`,
        'PROMPT_VARIABLE_VALUE',
      )
    }
    out += text.slice(cursor, open) + value
    cursor = open + match[0].length
    search = cursor
  }
  return cursor === 0 ? text : out + text.slice(cursor)
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}
