import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { sealRecord } from '../src/checksum.js'
import { parseHeader } from '../src/header.js'
import { headerLine } from '../src/line-format.js'
import { scanEvents } from '../src/scan.js'

// A sealed line is parsed up to its checksum field instead of whole (line-reader.ts). These pin that the result is
// what parsing the whole line and deleting the field gives, on every path the scan can take.
const seed = 16_016
const enc = new TextEncoder()
const headerText = headerLine({ version: 0, id: 's1', createdAt: 1 })
const headerSeal = sealRecord(headerText.slice(0, -1), 0)

/** A sealed log of `records` (JSON object texts), optionally followed by a complete line of invalid UTF-8. */
function sealedFile(records: string[], invalidTail = false): Uint8Array {
  let text = headerSeal.line
  let running = headerSeal.running
  for (const record of records) {
    const sealed = sealRecord(record, running)
    text += sealed.line
    running = sealed.running
  }
  const bytes = enc.encode(text)
  if (!invalidTail) return bytes
  const out = new Uint8Array(bytes.length + 2)
  out.set(bytes)
  out.set([0xff, 0x0a], bytes.length)
  return out
}

function scan(bytes: Uint8Array) {
  const { headerEnd, seal } = parseHeader(bytes)
  return scanEvents(bytes, headerEnd, seal)
}

/** The reference reading of one sealed line: parse it whole, require a string checksum field, delete it. */
function reference(line: string): unknown {
  try {
    const value = JSON.parse(line) as Record<string, unknown>
    if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof value.crc !== 'string') {
      return 'unparsable'
    }
    delete value.crc
    return value
  } catch {
    return 'unparsable'
  }
}

describe('reading sealed lines', () => {
  it(`gives every event exactly as parsing the whole line and deleting its checksum, ASCII or not, on the fast and the line-by-line path (seed ${seed})`, () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'é', '\u2028', '😀', '"', '\\', '\n', '}', ',"crc":"') })
    const data = fc.oneof(text, fc.jsonValue({ maxDepth: 2 }), fc.dictionary(text, text, { maxKeys: 3 }))
    const event = fc.record({ data, extra: fc.option(text, { nil: undefined }) })
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 6 }), (events) => {
        const records = events.map(({ data, extra }, seq) =>
          JSON.stringify({ type: 'plugin/x', seq, time: 1, data, ...(extra === undefined ? {} : { extra }) }),
        )
        const expected = records.map((record) => reference(sealRecord(record, 0).line.slice(0, -1)))
        const fast = scan(sealedFile(records))
        expect(fast.events).toEqual(expected)
        expect(fast.committedBytes).toBe(sealedFile(records).length)
        const slow = scan(sealedFile(records, true))
        expect(slow.events).toEqual(expected)
        expect(slow.committedBytes).toBe(fast.committedBytes)
      }),
      { seed, numRuns: 300 },
    )
  })

  it('a checksum field repeated earlier in the line is dropped too, as the whole-line parse would drop it', () => {
    const events = scan(sealedFile(['{"type":"plugin/x","seq":0,"time":1,"data":null,"crc":"not a checksum"}'])).events
    expect(events).toEqual([{ type: 'plugin/x', seq: 0, time: 1, data: null }])
    expect(Object.keys(events[0]!)).toEqual(['type', 'seq', 'time', 'data'])
  })

  it('a line whose only field is the checksum stays unparsable (cutting the field would leave a valid {})', () => {
    for (const record of ['{ }', '{\t}', '{\r}']) {
      const bytes = sealedFile([record])
      expect(new TextDecoder().decode(bytes).split('\n')[1]).toMatch(/^\{\s,"crc":"[0-9a-f]{8}"\}$/)
      const result = scan(bytes)
      expect(result.events).toEqual([])
      expect(result.defect?.reason).toBe('unparsable line')
    }
  })

  it('whitespace before the checksum field still reads the line', () => {
    const result = scan(sealedFile(['{"type":"plugin/x","seq":0,"time":1,"data":1 }']))
    expect(result.events).toEqual([{ type: 'plugin/x', seq: 0, time: 1, data: 1 }])
  })

  it('a line without a well-formed checksum field is not read as an event in a sealed log', () => {
    const text = new TextDecoder().decode(sealedFile(['{"type":"plugin/x","seq":0,"time":1,"data":1}']))
    const broken = text.replace(/"[0-9a-f]{8}"\}\n$/, '"zzzzzzzz"}\n')
    expect(broken).not.toBe(text)
    const result = scan(enc.encode(broken))
    expect(result.events).toEqual([])
    expect(result.defect).toBeDefined()
  })
})
