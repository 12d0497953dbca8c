import { describe, expect, it } from 'vitest'
import { SESSION_FORMAT_VERSION, Session } from '../src/index.js'

const base = { version: 0, id: 's', createdAt: 5 }

describe('session header: failures', () => {
  it('snapshot mode: not losslessly JSON-serializable', () => {
    expect(() => Session.create('s', undefined, { ...base, extra: NaN })).toThrow(
      'session header is not losslessly JSON-serializable',
    )
    expect(() => Session.create('s', undefined, new Date())).toThrow(
      'session header is not losslessly JSON-serializable',
    )
  })

  it('restore mode: a prototype other than null / Object.prototype is not a plain JSON record', () => {
    class H {
      version = 0
      id = 's'
      createdAt = 1
    }
    expect(() => Session.fromRestore('s', [], new H())).toThrow('session header is not a plain JSON record')
  })

  it.each([
    [[1], 'session header is not a plain JSON record'],
    ['x', 'session header is not a plain JSON record'],
    [null, 'session header is not a plain JSON record'],
    [{ ...base, version: 1 }, 'session header version must be 0, got 1'],
    [{ ...base, id: 'other' }, 'session header id "other" does not match session id "s"'],
    [{ ...base, createdAt: -1 }, 'session header createdAt must be a non-negative safe integer'],
    [{ ...base, createdAt: 1.5 }, 'session header createdAt must be a non-negative safe integer'],
    [{ ...base, createdAt: '1' }, 'session header createdAt must be a non-negative safe integer'],
    [{ ...base, cwd: 3 }, 'session header cwd must be a string'],
    [{ ...base, cwd: 'rel/dir' }, 'session header cwd must be an absolute path, got "rel/dir"'],
    [{ ...base, parentSession: 1 }, 'session header parentSession must be a string'],
    [{ ...base, seedLength: -2 }, 'session header seedLength must be a non-negative safe integer'],
  ])('rejects %j', (header, message) => {
    expect(() => Session.create('s', undefined, header)).toThrow(message)
    expect(() => Session.fromRestore('s', [], header)).toThrow(message)
  })

  it('checks run in order: version before id before createdAt', () => {
    expect(() => Session.create('s', undefined, { version: 2, id: 'x', createdAt: -1 })).toThrow(
      'version must be 0, got 2',
    )
    expect(() => Session.create('s', undefined, { version: 0, id: 'x', createdAt: -1 })).toThrow(
      'does not match session id',
    )
  })

  it('snapshot mode checks the seed before the header; restore mode checks the header first', () => {
    const badSeed = [{ type: 'x', seq: 0, time: 0, data: NaN }]
    const badHeader = { ...base, version: 9 }
    expect(() => Session.create('s', badSeed, badHeader)).toThrow(
      'seed event at index 0 is not losslessly JSON-serializable',
    )
    expect(() => Session.fromRestore('s', [{ type: 'x', seq: 3, time: 0, data: null }], badHeader)).toThrow(
      'version must be 0',
    )
  })
})

describe('session header: accepted', () => {
  it('defaults to {version: 0, id, createdAt: now}', () => {
    const before = Date.now()
    const s = Session.create('s')
    expect(SESSION_FORMAT_VERSION).toBe(0)
    expect(s.header.version).toBe(0)
    expect(s.header.id).toBe('s')
    expect(s.header.createdAt).toBeGreaterThanOrEqual(before)
  })

  it('keeps unknown extra keys and optional fields; the header is a detached deep-frozen copy', () => {
    const input = { ...base, cwd: '/work', parentSession: 'p', seedLength: 3, extra: { nested: [1] } }
    const s = Session.create('s', undefined, input)
    input.extra.nested.push(2)
    expect(s.header).toEqual({ ...base, cwd: '/work', parentSession: 'p', seedLength: 3, extra: { nested: [1] } })
    expect(Reflect.set(s.header, 'cwd', '/elsewhere')).toBe(false)
    expect(Reflect.set(s.header.extra as object, 'nested', [])).toBe(false)
    expect(Object.isFrozen((s.header.extra as { nested: unknown[] }).nested)).toBe(true)
  })

  it('restore mode accepts a null-prototype header', () => {
    const h = Object.assign(Object.create(null), base)
    expect(Session.fromRestore('s', [], h).header.createdAt).toBe(5)
  })
})

describe('session header: restore mode is detached too', () => {
  it('later changes to the restored input are not seen', () => {
    const input = { version: 0, id: 's', createdAt: 1, extra: { n: 1 } }
    const s = Session.fromRestore('s', [], input)
    input.extra.n = 2
    expect((s.header.extra as { n: number }).n).toBe(1)
    expect(Object.isFrozen(s.header)).toBe(true)
  })
})
