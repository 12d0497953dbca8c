import { crc32 } from 'node:zlib'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { sealLines, sealLog, storedSeal, SUFFIX_LENGTH } from '../src/checksum.js'
import { parseHeader } from '../src/header.js'
import { eventLine, headerLine } from '../src/line-format.js'
import { CommittedDamage, scanEvents } from '../src/scan.js'
import { buildLog, scriptedAppends } from './fixtures/script.js'

const seed = 4_242
const enc = new TextEncoder()
const plainLog =
  headerLine({ version: 0, id: 's1', createdAt: 1 }) + buildLog(scriptedAppends(2)).map(eventLine).join('')

describe('sealing', () => {
  it(`every sealed line ends in the CRC-32 of all bytes before its digits; sealing is idempotent and keeps the JSON (seed ${seed})`, () => {
    const key = fc.string({ maxLength: 6 }).filter((k) => k !== 'crc')
    const record = fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 4 })
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 8 }), (records) => {
        const plain = records.map((r) => JSON.stringify(r) + '\n').join('')
        const sealed = sealLog(plain)
        expect(sealLog(sealed)).toBe(sealed)
        const bytes = enc.encode(sealed)
        const lines = sealed.split('\n').slice(0, -1)
        let start = 0
        lines.forEach((line, i) => {
          const newline = bytes.indexOf(0x0a, start)
          const seal = storedSeal(bytes, start, newline)
          expect(seal).toBeDefined()
          expect(crc32(bytes.subarray(0, seal!.hexStart))).toBe(seal!.value)
          const { crc, ...rest } = JSON.parse(line) as Record<string, unknown>
          expect(typeof crc).toBe('string')
          expect(JSON.stringify(rest)).toBe(JSON.stringify(records[i]))
          start = newline + 1
        })
        // Sealing in two batches continues the chain exactly like sealing once.
        const cut = plain.indexOf('\n') + 1
        const first = sealLines(plain.slice(0, cut), 0)
        expect(first.text + sealLines(plain.slice(cut), first.running).text).toBe(sealed)
      }),
      { seed, numRuns: 200 },
    )
  })

  it('a seal is exactly `,"crc":"<8 lowercase hex>"}` at the end of its line', () => {
    const sealed = sealLog('{"a":1}\n')
    const at = (text: string) => storedSeal(enc.encode(text), 0, enc.encode(text).length - 1)
    expect(at(sealed)).toEqual({ value: expect.any(Number), hexStart: sealed.length - 11 })
    expect(at(sealed.toUpperCase().replace('"CRC"', '"crc"'))).toBeUndefined()
    expect(at(sealed.replace('"crc"', '"crb"'))).toBeUndefined()
    expect(at(sealed.slice(-SUFFIX_LENGTH - 1))).toBeUndefined() // nothing before the suffix
    expect(() => sealLog('{"a":1}')).toThrow('sealLog: the log text must end with a newline')
    expect(() => sealLog('{}\n')).toThrow(
      'cannot seal "{}": a sealed line must be a JSON object with at least one field',
    )
  })
})

describe('scanning a sealed log', () => {
  const sealed = sealLog(plainLog)
  const lines = sealed.split('\n').slice(0, -1)
  const turnEnds = lines.flatMap((line, i) => (line.includes('"type":"turn/end"') ? [i + 1] : []))
  const scan = (text: string) => {
    const bytes = enc.encode(text)
    const { headerEnd, seal } = parseHeader(bytes)
    return scanEvents(bytes, headerEnd, seal)
  }

  it('a damaged newline that merges a line onto the last turn/end is still damage inside the committed region', () => {
    const last = turnEnds.at(-1)!
    const merged =
      [...lines.slice(0, last - 2), lines[last - 2]! + ' ' + lines[last - 1]!, ...lines.slice(last)].join('\n') + '\n'
    let error: unknown
    try {
      scan(merged)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(CommittedDamage)
    expect(error).toMatchObject({
      message: `corrupt session log: checksum mismatch in committed event at line ${last - 1}`,
      line: last - 1,
    })
  })

  it('damage to one line of the open tail leaves the lines after it verifiable (counted as intact events)', () => {
    const open = lines.slice(0, turnEnds[0]! + 6)
    const damaged =
      [...open.slice(0, -4), open.at(-4)!.replace('"seq":', '"seq" :'), ...open.slice(-3)].join('\n') + '\n'
    const result = scan(damaged)
    expect(result.defect).toMatchObject({ line: open.length - 3, reason: 'checksum mismatch' })
    expect(result.intactAfterDefect).toBe(3)
    expect(result.events).toHaveLength(open.length - 5)
  })
})
