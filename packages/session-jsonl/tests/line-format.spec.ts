import { describe, expect, it } from 'vitest'
import { eventLine, headerLine } from '../src/line-format.js'

describe('line format', () => {
  it('writes the header fields in order and omits absent ones', () => {
    expect(headerLine({ version: 0, id: 's1', createdAt: 5 })).toBe(
      '{"type":"session","version":0,"id":"s1","createdAt":5}\n',
    )
    const full = { version: 0 as const, id: 's', createdAt: 1, seedLength: 3, parentSession: 'p', cwd: '/w', extra: 1 }
    expect(headerLine(full)).toBe(
      '{"type":"session","version":0,"id":"s","createdAt":1,"cwd":"/w","parentSession":"p","seedLength":3}\n',
    )
    expect(headerLine({ version: 0, id: 's', createdAt: 1, cwd: undefined })).not.toContain('null')
  })

  it('writes only the envelope fields, in envelope order', () => {
    const event = {
      sourceEventSeqs: [0],
      data: { a: 1 },
      surfaceOp: 'append',
      time: 7,
      seq: 1,
      type: 'user/message',
      junk: 1,
    }
    expect(eventLine(event)).toBe(
      '{"type":"user/message","seq":1,"time":7,"data":{"a":1},"surfaceOp":"append","sourceEventSeqs":[0]}\n',
    )
    expect(eventLine({ type: 'x', seq: 0, time: 1, data: null, ignorable: true })).toBe(
      '{"type":"x","seq":0,"time":1,"data":null,"ignorable":true}\n',
    )
  })

  it('re-serializes a parsed line to the same bytes', () => {
    const line = eventLine({ type: 'turn/end', seq: 3, time: -1, data: { turn: 1, reason: { kind: 'completed' } } })
    expect(eventLine(JSON.parse(line))).toBe(line)
  })
})
