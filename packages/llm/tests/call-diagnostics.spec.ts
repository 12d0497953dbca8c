/** What an error says about its cause (issue 18): the socket-level reason of a transport failure, the opening of a non-stream. */
import { describe, expect, it } from 'vitest'
import { rootCause, sniffOpening, snippetOf, withCause } from '../src/adapter-kit.js'

describe('rootCause', () => {
  it('takes the deepest specific message and appends its code when the message lacks it', () => {
    const socket = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' })
    expect(rootCause(new TypeError('terminated', { cause: socket }))).toBe('other side closed (UND_ERR_SOCKET)')
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' })
    const wrapped = new Error('Connection error.', { cause: new TypeError('fetch failed', { cause: refused }) })
    expect(withCause('request to http://h failed', wrapped)).toBe(
      'request to http://h failed: connect ECONNREFUSED 127.0.0.1:9',
    )
  })

  it('looks inside an AggregateError (both address families refused) and falls back to a bare code', () => {
    const v6 = Object.assign(new Error('connect ECONNREFUSED ::1:9'), { code: 'ECONNREFUSED' })
    const v4 = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' })
    const aggregate = Object.assign(new AggregateError([v6, v4], ''), { code: 'ECONNREFUSED' })
    expect(rootCause(new TypeError('fetch failed', { cause: aggregate }))).toBe('connect ECONNREFUSED ::1:9')
    expect(
      rootCause(new TypeError('fetch failed', { cause: Object.assign(new Error(''), { code: 'ENOTFOUND' }) })),
    ).toBe('ENOTFOUND')
  })

  it('says nothing when the chain holds only generic wrappers; survives cycles', () => {
    expect(withCause('x failed', new TypeError('fetch failed'))).toBe('x failed')
    const a: Error & { cause?: unknown } = new Error('loop')
    a.cause = a
    expect(rootCause(a)).toBe('loop')
    expect(rootCause('a string')).toBeUndefined()
  })
})

describe('sniffOpening', () => {
  it.each([
    ['data: {}\n\n', false, 'event-stream'],
    [': keep-alive\n\n', false, 'event-stream'],
    ['\uFEFF\r\n\r\nevent: x\n', false, 'event-stream'],
    ['retry: 10\n', false, 'event-stream'],
    ['id\n', false, 'event-stream'],
    ['da', false, 'undecided'],
    ['', false, 'undecided'],
    ['<!doctype html>', false, 'not-event-stream'],
    ['{"choices":[]}', false, 'not-event-stream'],
    ['database down', false, 'not-event-stream'],
    ['dat', true, 'not-event-stream'],
    ['data', true, 'event-stream'],
    [' data: x', false, 'not-event-stream'],
  ] as const)('%j (ended %s) → %s', (text, ended, verdict) => {
    expect(sniffOpening(text, ended)).toBe(verdict)
  })

  it('an empty body is a stream only when labeled as one', () => {
    expect(sniffOpening('', true, true)).toBe('event-stream')
    expect(sniffOpening('\n', true, false)).toBe('not-event-stream')
  })
})

describe('snippetOf', () => {
  it('reduces HTML to its text and drops scripts, styles and an unterminated tag', () => {
    expect(snippetOf('<html><style>a{}</style><script>x()</script><p>Sign&nbsp;in</p><img src="')).toBe('Sign in')
    expect(snippetOf('<>')).toBe('<>')
  })

  it('removes control characters and collapses whitespace; empty text says so', () => {
    expect(snippetOf('a\u0007\u001b[2Jb\n\n c\u200b')).toBe('a [2Jb c')
    expect(snippetOf(' \n\t ')).toBe('(empty body)')
  })
})
