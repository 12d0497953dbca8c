import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { HeaderDefect, parseHeader } from '../src/header.js'
import { eventLine, headerLine } from '../src/line-format.js'
import { decodeStrict } from '../src/line-reader.js'
import { CommittedDamage, scanEvents } from '../src/scan.js'
import { buildLog, scriptedAppends } from './fixtures/script.js'

const enc = new TextEncoder()
const header = headerLine({ version: 0, id: 's1', createdAt: 1 })

function fileOf(lines: string[]): Uint8Array {
  return enc.encode(header + lines.join(''))
}

function scan(bytes: Uint8Array) {
  const { headerEnd } = parseHeader(bytes)
  return scanEvents(bytes, headerEnd)
}

function scanError(bytes: Uint8Array): unknown {
  try {
    scan(bytes)
  } catch (error) {
    return error
  }
  throw new Error('expected the scan to throw')
}

describe('parseHeader', () => {
  const cases: [string, string][] = [
    ['', 'empty or header-less session log'],
    ['{"type":"session","version":0,"id":"s1","createdAt":1}', 'empty or header-less session log'],
    ['{"type":"session",\n', 'corrupt session log: header line is not valid JSON'],
    ['\n', 'corrupt session log: header line is not valid JSON'],
    ['[1]\n', 'corrupt session log: first line is not a session header'],
    [
      '{"type":"sess","version":0,"id":"s1","createdAt":1}\n',
      'corrupt session log: first line is not a session header',
    ],
    [
      '{"type":"session","version":0,"id":1,"createdAt":1}\n',
      'corrupt session log: first line is not a session header',
    ],
    [
      '{"type":"session","version":0,"id":"s","createdAt":-0}\n',
      'corrupt session log: first line is not a session header',
    ],
    [
      '{"type":"session","version":0,"id":"s","createdAt":1.5}\n',
      'corrupt session log: first line is not a session header',
    ],
    [
      '{"type":"session","version":0,"id":"s","createdAt":1,"cwd":"rel"}\n',
      'corrupt session log: first line is not a session header',
    ],
    [
      '{"type":"session","version":0,"id":"s","createdAt":1,"seedLength":-1}\n',
      'corrupt session log: first line is not a session header',
    ],
    [
      '{"type":"session","version":0,"id":"s","createdAt":1,"parentSession":3}\n',
      'corrupt session log: first line is not a session header',
    ],
    [
      '{"type":"session","version":"0","id":"s","createdAt":1}\n',
      'corrupt session log: first line is not a session header',
    ],
  ]
  it.each(cases)('refuses %j as corrupt', (text, message) => {
    let error: unknown
    try {
      parseHeader(enc.encode(text))
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(HeaderDefect)
    expect((error as HeaderDefect).kind).toBe('corrupt')
    expect((error as Error).message).toBe(message)
  })

  it('refuses foreign versions before any structural check', () => {
    const newer = (() => {
      try {
        parseHeader(enc.encode('{"version":3,"id":"x"}\n'))
      } catch (e) {
        return e as HeaderDefect
      }
    })()
    expect(newer?.kind).toBe('format')
    expect(newer?.message).toBe(
      'session "x" uses log format v3, but this harness reads only v0: the log was written by a newer harness — upgrade the harness to open it',
    )
    expect(() => parseHeader(enc.encode('{"version":-1,"id":7}\n'))).toThrow(
      'session "7" uses log format v-1, older than the supported v0, and this build ships no upgrade path for it',
    )
  })

  it('returns the known header fields and the header end offset', () => {
    const text =
      '{"type":"session","version":0,"id":"s","createdAt":2,"cwd":"/w","parentSession":"p","seedLength":4,"x":1}\n'
    expect(parseHeader(enc.encode(text + 'rest'))).toEqual({
      meta: { version: 0, id: 's', createdAt: 2, cwd: '/w', parentSession: 'p', seedLength: 4 },
      headerEnd: enc.encode(text).length,
    })
  })
})

describe('scanEvents: torn tail', () => {
  const events = buildLog(scriptedAppends(2))
  const lines = events.map(eventLine)
  const bytes = fileOf(lines)
  const { headerEnd } = parseHeader(bytes)
  // Byte offset where each complete line ends.
  const ends: number[] = []
  let offset = headerEnd
  for (const line of lines) {
    offset += enc.encode(line).length
    ends.push(offset)
  }

  it('every crash image scans to exactly its complete lines (all offsets)', () => {
    for (let k = headerEnd; k <= bytes.length; k++) {
      const result = scanEvents(bytes.subarray(0, k), headerEnd)
      const complete = ends.filter((end) => end <= k).length
      expect(result.events).toEqual(events.slice(0, complete))
      expect(result.committedBytes).toBe(complete === 0 ? headerEnd : ends[complete - 1])
    }
  })

  it('treats a fragment as torn even if it is valid JSON', () => {
    const text = header + lines[0] + lines[1]!.slice(0, -1)
    const result = scan(enc.encode(text))
    expect(result.events).toHaveLength(1)
  })

  it('drops a defect after the last turn/end and everything after it, even complete lines', () => {
    const turnEnd = events.findIndex((e) => e.type === 'turn/end')
    const damaged = [...lines]
    damaged[turnEnd + 3] = '{"type": broken\n'
    const result = scan(fileOf(damaged.slice(0, turnEnd + 6)))
    expect(result.events).toEqual(events.slice(0, turnEnd + 3))
  })

  it('an empty line after the committed region is torn tail', () => {
    const result = scan(fileOf([lines[0]!, '\n', lines[1]!]))
    expect(result.events).toEqual(events.slice(0, 1))
  })
})

describe('scanEvents: committed damage', () => {
  const events = buildLog(scriptedAppends(2))
  const lines = events.map(eventLine)

  it('an unparsable line before a later turn/end is corruption naming the line', () => {
    const damaged = [...lines]
    damaged[2] = damaged[2]!.replace('{', '}')
    const error = scanError(fileOf(damaged))
    expect(error).toBeInstanceOf(CommittedDamage)
    expect((error as Error).message).toBe('corrupt session log: unparsable committed event at line 4')
    expect((error as CommittedDamage).line).toBe(4)
  })

  it('a seq gap before a later turn/end is corruption with expected and actual seq', () => {
    const damaged = [...lines]
    damaged.splice(3, 1)
    expect((scanError(fileOf(damaged)) as Error).message).toBe(
      'corrupt session log: seq gap in committed region at line 5 (expected 3, got 4)',
    )
  })

  it('a gap on a turn/end line itself throws at once', () => {
    const turnEnd = events.findIndex((e) => e.type === 'turn/end')
    const damaged = lines.slice(0, turnEnd + 1)
    damaged[turnEnd] = eventLine({ ...events[turnEnd]!, seq: 999 })
    expect((scanError(fileOf(damaged)) as Error).message).toBe(
      `corrupt session log: seq gap in committed region at line ${turnEnd + 2} (expected ${turnEnd}, got 999)`,
    )
  })

  it('a non-object value is a gap', () => {
    const turnEnd = events.findIndex((e) => e.type === 'turn/end')
    const damaged = [...lines]
    damaged[1] = '[1,2]\n'
    void turnEnd
    expect((scanError(fileOf(damaged)) as Error).message).toBe(
      'corrupt session log: seq gap in committed region at line 3 (expected 1, got undefined)',
    )
  })

  it('an empty line inside the committed region is unparsable', () => {
    const damaged = [...lines]
    damaged.splice(1, 0, '\n')
    expect((scanError(fileOf(damaged)) as Error).message).toBe(
      'corrupt session log: unparsable committed event at line 3',
    )
  })

  it('invalid UTF-8 inside the committed region is unparsable', () => {
    const good = fileOf(lines)
    const copy = new Uint8Array(good)
    const { headerEnd } = parseHeader(copy)
    const at = copy.indexOf(enc.encode('"')[0]!, headerEnd + 2)
    copy[at] = 0xff
    expect((scanError(copy) as Error).message).toBe('corrupt session log: unparsable committed event at line 2')
  })

  it('P2: damage to any complete line is corruption iff a turn/end line follows (property)', () => {
    const turnEndLines = events.flatMap((e, i) => (e.type === 'turn/end' ? [i] : []))
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: lines.length - 1 }),
        fc.integer({ min: 1, max: lines.length }),
        (victim, keep) => {
          fc.pre(victim < keep)
          const damaged = lines.slice(0, keep)
          damaged[victim] = '#' + damaged[victim]!.slice(1)
          const bytes = fileOf(damaged)
          const committed = turnEndLines.some((i) => i > victim && i < keep)
          if (committed) {
            expect((scanError(bytes) as Error).message).toBe(
              `corrupt session log: unparsable committed event at line ${victim + 2}`,
            )
          } else {
            expect(scan(bytes).events).toEqual(events.slice(0, victim))
          }
        },
      ),
    )
  })
})

describe('a line is judged the same whether or not another line is invalid UTF-8', () => {
  const ev = (seq: number) => eventLine({ type: 'user/message', seq, time: 1, data: { n: seq } })
  const withInvalidTail = (lines: string[]) => {
    const base = fileOf(lines)
    const out = new Uint8Array(base.length + 2)
    out.set(base)
    out.set([0xff, 0x0a], base.length)
    return out
  }
  it.each<[string, string[], number]>([
    ['a BOM right after the header is dropped', ['\ufeff' + ev(0), ev(1)], 2],
    ['a BOM starting a later line makes it unparsable', [ev(0), '\ufeff' + ev(1), ev(2)], 1],
  ])('%s', (_name, lines, accepted) => {
    expect(scan(fileOf(lines)).events).toHaveLength(accepted)
    // With a complete invalid line after them, the lines are decoded one by one; the verdicts must not change.
    expect(scan(withInvalidTail(lines)).events).toHaveLength(accepted)
  })
})

describe('decodeStrict agrees with a fatal TextDecoder', () => {
  const reference = (bytes: Uint8Array): string | undefined => {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    } catch {
      return undefined
    }
  }
  it.each<[string, number[]]>([
    ['empty', []],
    ['leading BOM is dropped', [0xef, 0xbb, 0xbf, 0x7b, 0x7d]],
    ['BOM later is kept', [0x20, 0xef, 0xbb, 0xbf]],
    ['lone surrogate (CESU-8) is invalid', [0xed, 0xa0, 0x80]],
    ['overlong encoding is invalid', [0xc0, 0xaf]],
    ['truncated sequence is invalid', [0xe2, 0x82]],
    ['four-byte character', [0xf0, 0x9f, 0x98, 0x80]],
    ['an encoded U+FFFD is valid', [0x22, 0xef, 0xbf, 0xbd, 0x22]],
    ['U+FFFD beside an invalid byte', [0xef, 0xbf, 0xbd, 0xff]],
    ['surrogate pair encoded separately (CESU-8)', [0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80]],
    ['code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ])('%s', (_name, bytes) => {
    const input = Uint8Array.from(bytes)
    expect(decodeStrict(input)).toBe(reference(input))
  })

  it('for random bytes, random strings and offset views', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 64 }),
          fc.string({ unit: 'binary' }).map((t) => enc.encode(t)),
        ),
        fc.nat(4),
        (bytes, cut) => {
          const view = bytes.subarray(Math.min(cut, bytes.length))
          expect(decodeStrict(view)).toBe(reference(view))
        },
      ),
      { numRuns: 500 },
    )
  })
})
