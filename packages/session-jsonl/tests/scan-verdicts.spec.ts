/**
 * The scan's verdict on damage near the end of a log, as a reload reports it: which events are kept, where the
 * committed bytes end, whether a damaged line proves that its turn closed (then the damage is corruption inside the
 * committed region, never silently cut off), and what the recovery report counts about the discarded tail.
 */
import { describe, expect, it } from 'vitest'
import { eventLine, headerLine, parseHeader, scanEvents } from '../src/index.js'
import { encodeNewLog } from '../src/line-format.js'
import { buildLog, scriptedAppends } from './fixtures/script.js'

const enc = new TextEncoder()
const dec = new TextDecoder()
const meta = { version: 0 as const, id: 's1', createdAt: 1000 }
const log = buildLog(scriptedAppends(2))
const firstTurnEnd = log.findIndex((e) => e.type === 'turn/end')

const scan = (bytes: Uint8Array) => {
  const { headerEnd, seal } = parseHeader(bytes)
  return scanEvents(bytes, headerEnd, seal)
}

/** A sealed log of the first turn, with its last line (the turn/end) rewritten by `damage`. */
function sealedWithDamagedTurnEnd(damage: (line: string) => string): Uint8Array {
  const text = dec.decode(encodeNewLog(meta, log.slice(0, firstTurnEnd + 1)).bytes)
  const lines = text.split('\n').slice(0, -1)
  const last = lines.at(-1)!
  expect(last.startsWith('{"type":"turn/end"')).toBe(true)
  lines[lines.length - 1] = damage(last)
  return enc.encode(`${lines.join('\n')}\n`)
}

describe('a damaged turn/end line at the end of a sealed log', () => {
  it('whose checksum digits were damaged still holds the whole record: the turn closed, so this is corruption', () => {
    const bytes = sealedWithDamagedTurnEnd((line) => `${line.slice(0, -3)}g"}`)
    expect(() => scan(bytes)).toThrow(
      `corrupt session log: checksum mismatch in committed event at line ${firstTurnEnd + 2}`,
    )
  })

  it('whose record itself was cut in two no longer proves the turn closed: it is torn tail', () => {
    const bytes = sealedWithDamagedTurnEnd((line) => line.replace('"data":', '"data";'))
    const result = scan(bytes)
    expect(result.events.map((e) => e.seq)).toEqual(log.slice(0, firstTurnEnd).map((e) => e.seq))
    expect(result.defect?.reason).toBe('checksum mismatch')
  })
})

describe('a log without checksums', () => {
  const header = headerLine(meta)
  const lines = log.slice(0, firstTurnEnd).map(eventLine)
  const turnEnd = eventLine(log[firstTurnEnd]!)

  it('a garbled line that happens to end in a turn/end record is torn tail, not proof of a closed turn', () => {
    // only a sealed line's checksum can tell damage apart from a torn write; here a torn fragment ran into the next line
    const bytes = enc.encode(`${header}${lines.join('')}{"type":"user/mess\n{"type":"step/s${turnEnd}`)
    const result = scan(bytes)
    expect(result.events).toHaveLength(lines.length)
    expect(result.defect?.reason).toBe('unparsable line')
  })

  it('reports a seq gap by what it expected and found, and counts only intact events after it', () => {
    const later = log.slice(0, firstTurnEnd).map((e) => ({ ...e, seq: e.seq + 5 }))
    const bytes = enc.encode(`${header}${lines[0]}${eventLine(later[2]!)}garbage\n\n${eventLine(later[3]!)}`)
    const result = scan(bytes)
    expect(result.events).toHaveLength(1)
    expect(result.defect?.reason).toBe('seq gap (expected 1, got 7)')
    expect(result.intactAfterDefect).toBe(1)
    expect(result.completeLines).toBe(5)
  })

  it('a blank line right after the header is a complete line: the complete bytes end after it', () => {
    const bytes = enc.encode(`${header}\n${lines[0]!.slice(0, 10)}`)
    const headerEnd = enc.encode(header).length
    expect(scan(bytes)).toMatchObject({
      events: [],
      committedBytes: headerEnd,
      completeLines: 1,
      completeBytes: headerEnd + 1,
    })
  })
})
