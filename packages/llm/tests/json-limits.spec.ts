import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  createAssistantMessage,
  createMessage,
  createToolResultMessage,
  callId,
  describeJsonLimitViolation,
  freezeMessage,
  JSON_LIMITS,
  JsonLimitError,
  jsonLimitViolation,
  jsonPath,
  MAX_JSON_BYTES,
  MAX_JSON_DEPTH,
  MESSAGE_JSON_LIMITS,
} from '../src/index.js'
import { formatBytes, jsonStringBytes } from '../src/json-limits.js'

function nested(levels: number, leaf: unknown = 0): unknown {
  let value = leaf
  for (let i = 0; i < levels; i++) value = [value]
  return value
}

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8')

describe('jsonStringBytes', () => {
  it('is the UTF-8 size of JSON.stringify(text), escapes and lone surrogates included (property, seeded)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.oneof(fc.constant('binary'), fc.constant('grapheme')) as never, maxLength: 40 }),
        (text) => {
          expect(jsonStringBytes(text)).toBe(utf8(JSON.stringify(text)))
        },
      ),
      { seed: 77, numRuns: 400 },
    )
    for (const text of ['', '"', '\\', '\n\t\b\f\r', '\u0001\u001f', 'é', '😀', '\ud800', '\udc00x', 'a\ud83d']) {
      expect(jsonStringBytes(text), JSON.stringify(text)).toBe(utf8(JSON.stringify(text)))
    }
  })
})

describe('jsonLimitViolation', () => {
  it('measures any JSON value exactly: a limit of its size fits, one byte less does not (property, seeded)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const size = utf8(JSON.stringify(value))
        expect(jsonLimitViolation(value, { maxDepth: 100, maxBytes: size })).toBeUndefined()
        const over = jsonLimitViolation(value, { maxDepth: 100, maxBytes: size - 1 })
        expect(over).toMatchObject({ kind: 'size', bytes: size, limit: size - 1 })
      }),
      { seed: 78, numRuns: 400 },
    )
  })

  it('counts depth in levels of arrays and objects and names the first place too deep', () => {
    expect(jsonLimitViolation(nested(3), { maxDepth: 3, maxBytes: 100 })).toBeUndefined()
    expect(jsonLimitViolation(nested(4), { maxDepth: 3, maxBytes: 100 })).toEqual({
      kind: 'depth',
      path: '$[0][0][0]',
      limit: 3,
    })
    expect(jsonLimitViolation({ a: [{ 'b c': {} }] }, { maxDepth: 3, maxBytes: 100 })).toEqual({
      kind: 'depth',
      path: '$.a[0]["b c"]',
      limit: 3,
    })
    expect(jsonLimitViolation('scalar', { maxDepth: 0, maxBytes: 100 })).toBeUndefined()
  })

  it('stops at the limit: a 200,000-deep chain is refused without walking it (and without recursion)', () => {
    const violation = jsonLimitViolation(nested(200_000))
    expect(violation).toEqual({ kind: 'depth', path: `$${'[0]'.repeat(8)}…(990 more)…[0][0]`, limit: MAX_JSON_DEPTH })
  })

  it('the default limits are the documented ones', () => {
    expect(JSON_LIMITS).toEqual({ maxDepth: 1000, maxBytes: 32 * 1024 * 1024 })
    expect(MESSAGE_JSON_LIMITS).toEqual({ maxDepth: 996, maxBytes: 32 * 1024 * 1024 - 64 * 1024 })
    expect(MAX_JSON_BYTES).toBe(33_554_432)
  })
})

describe('wording', () => {
  it('describes each limit with the place it was passed', () => {
    expect(describeJsonLimitViolation({ kind: 'depth', path: '$.a', limit: 1000 })).toBe(
      'nests deeper than the 1000-level JSON limit (at $.a)',
    )
    expect(describeJsonLimitViolation({ kind: 'size', path: '$.t', limit: MAX_JSON_BYTES, bytes: 40_000_000 })).toBe(
      'is 40000000 bytes as JSON, over the 32 MiB limit (33554432 bytes; passed at $.t)',
    )
    const error = new JsonLimitError('session event "x" carries data that', { kind: 'depth', path: '$', limit: 2 })
    expect(error.message).toBe('session event "x" carries data that nests deeper than the 2-level JSON limit (at $)')
    expect(error.code).toBe('JSON_TOO_DEEP')
    expect(error.name).toBe('JsonLimitError')
  })
  it('formats byte counts and shortens deep paths', () => {
    expect([formatBytes(97), formatBytes(2048), formatBytes(1536), formatBytes(32 * 1024 * 1024)]).toEqual([
      '97 bytes',
      '2 KiB',
      '1.5 KiB',
      '32 MiB',
    ])
    expect(jsonPath('$', ['.a', '[0]'])).toBe('$.a[0]')
    expect(
      jsonPath(
        '$',
        Array.from({ length: 20 }, (_, i) => `[${i}]`),
      ),
    ).toBe('$[0][1][2][3][4][5][6][7]…(10 more)…[18][19]')
  })
})

describe('message constructors enforce the message limit (TypeError with a JsonLimitError cause)', () => {
  const deepBlock = (levels: number) => ({ type: 'custom', data: nested(levels) }) as never
  it('refuses a message one level too deep and accepts one at the limit', () => {
    // message → content → block → data: three levels above the data itself.
    const fits = MESSAGE_JSON_LIMITS.maxDepth - 3
    expect(() => createMessage({ role: 'user', content: [deepBlock(fits)], source: { kind: 'user' } })).not.toThrow()
    const refuse = () => createMessage({ role: 'user', content: [deepBlock(fits + 1)], source: { kind: 'user' } })
    expect(refuse).toThrow(TypeError)
    expect(refuse).toThrow(/^message nests deeper than the 996-level JSON limit \(at \$\.content\[0\]\.data/)
  })
  it('checks nested tool-result content before walking it (100,000 levels throw a TypeError, not a stack overflow)', () => {
    let content: unknown = [{ type: 'text', text: 'x' }]
    for (let i = 0; i < 50_000; i++) content = [{ type: 'tool-result', toolCallId: 'c', content }]
    const error = (() => {
      try {
        createToolResultMessage({ callId: callId('c1'), content: content as never })
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(TypeError)
    expect((error as Error).cause).toBeInstanceOf(JsonLimitError)
    expect((error as Error).message).toMatch(
      /^message nests deeper than the 996-level JSON limit \(at \$\.content\[0\]\.content\[0\]/,
    )
  })
  it('refuses oversized assistant replay state and imported messages alike', () => {
    expect(() =>
      createAssistantMessage({
        content: [],
        source: { provider: 'p', model: 'm', replayState: nested(2000) as never },
      }),
    ).toThrow(/^message nests deeper than the 996-level JSON limit \(at \$\.source\.replayState/)
    expect(() =>
      freezeMessage({
        id: 'm1',
        role: 'user',
        content: [{ type: 'text', text: 'é'.repeat(17_000_000) }],
        source: { kind: 'user' },
      }),
    ).toThrow(
      /^message is 340000\d\d bytes as JSON, over the 31\.9 MiB limit \(33488896 bytes; passed at \$\.content\[0\]\.text\)$/,
    )
  })
})
