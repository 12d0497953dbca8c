/**
 * Encodes a session id as one file-name segment. `[A-Za-z0-9._-]` stay literal; every other UTF-16 code unit
 * (including `~` itself and lone surrogates) becomes `~XXXX` with four uppercase hex digits. Because `~` is always
 * escaped, the mapping is injective: two ids never share a file. Throws on an empty id.
 */
export function encodeSegment(id: string): string {
  if (typeof id !== 'string') throw new TypeError(`session id must be a string, got ${typeof id}`)
  if (id.length === 0) throw new Error('cannot encode an empty path segment')
  let out = ''
  for (let i = 0; i < id.length; i++) {
    const unit = id.charCodeAt(i)
    if (isLiteral(unit)) out += id[i]
    else out += '~' + unit.toString(16).toUpperCase().padStart(4, '0')
  }
  return out
}

/** Inverse of `encodeSegment`; returns `undefined` for a name that `encodeSegment` never produces. */
export function decodeSegment(segment: string): string | undefined {
  let out = ''
  for (let i = 0; i < segment.length; i++) {
    const unit = segment.charCodeAt(i)
    if (isLiteral(unit)) {
      out += segment[i]
      continue
    }
    const hex = segment.slice(i + 1, i + 5)
    if (unit !== 0x7e || !/^[0-9A-F]{4}$/.test(hex)) return undefined
    const decoded = Number.parseInt(hex, 16)
    if (isLiteral(decoded)) return undefined
    out += String.fromCharCode(decoded)
    i += 4
  }
  return out.length === 0 ? undefined : out
}

function isLiteral(unit: number): boolean {
  return (
    (unit >= 0x41 && unit <= 0x5a) || // A-Z
    (unit >= 0x61 && unit <= 0x7a) || // a-z
    (unit >= 0x30 && unit <= 0x39) || // 0-9
    unit === 0x2e || // .
    unit === 0x5f || // _
    unit === 0x2d // -
  )
}
