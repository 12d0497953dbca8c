import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  MIN_SECRET_LENGTH,
  REDACTED,
  isCredentialParameter,
  namedCredentials,
  redactSecrets,
  urlCredentials,
  urlHasCredentials,
} from '../src/index.js'

describe('redactSecrets', () => {
  it('replaces every occurrence of a known secret, longest first', () => {
    const key = 'sk-live-0123456789abcdef'
    expect(redactSecrets(`Incorrect API key provided: ${key}. Bearer ${key}`, [key])).toBe(
      `Incorrect API key provided: ${REDACTED}. Bearer ${REDACTED}`,
    )
    expect(redactSecrets('a sk-live-0123456789 b', ['sk-live-0123456789', 'sk-live-0123456789'.slice(0, 9)])).toBe(
      `a ${REDACTED} b`,
    )
  })

  it('catches the JSON-escaped form of a secret', () => {
    const key = 'abc"def\\ghi'
    expect(redactSecrets(JSON.stringify({ message: `key ${key}` }), [key])).toBe(`{"message":"key ${REDACTED}"}`)
  })

  it('ignores values too short to be keys, and undefined entries', () => {
    expect(MIN_SECRET_LENGTH).toBe(8)
    expect(redactSecrets('none of EMPTY', ['none', 'EMPTY', undefined, ''])).toBe('none of EMPTY')
  })

  it('removes the userinfo of every URL in the text', () => {
    expect(redactSecrets('request to http://user:secret@127.0.0.1:80/v1 failed; see https://tok@example.com/x')).toBe(
      `request to http://${REDACTED}@127.0.0.1:80/v1 failed; see https://${REDACTED}@example.com/x`,
    )
    expect(redactSecrets('mail me: a@b.c, http://host/a@b')).toBe('mail me: a@b.c, http://host/a@b')
  })

  it('property: the secret never survives, whatever surrounds it', () => {
    const secret = fc.string({ unit: fc.constantFrom(...'abcXYZ019-_"\\:@/'.split('')), minLength: 8, maxLength: 24 })
    fc.assert(
      fc.property(secret, fc.string(), fc.string(), (s, before, after) => {
        const out = redactSecrets(`${before}${s}${after}${JSON.stringify(s)}`, [s])
        expect(out.includes(s)).toBe(false)
      }),
      { seed: 1414, numRuns: 300 },
    )
  })
})

describe('urlHasCredentials', () => {
  it('is true for a user name or password, false otherwise and for non-URLs', () => {
    expect(urlHasCredentials('http://user:secret@host')).toBe(true)
    expect(urlHasCredentials('https://token@host/v1')).toBe(true)
    expect(urlHasCredentials('https://:pw@host')).toBe(true)
    expect(urlHasCredentials('https://api.deepseek.com')).toBe(false)
    expect(urlHasCredentials('not a url')).toBe(false)
  })
})

describe('credentials in a URL', () => {
  it('isCredentialParameter: names that say key, token, secret, password, signature…; api-version is not one', () => {
    for (const name of [
      'key',
      'api-key',
      'api_key',
      'apiKey',
      'x-api-key',
      'token',
      'access_token',
      'secret',
      'client_secret',
      'password',
      'pwd',
      'sig',
      'X-Amz-Signature',
      'X-Amz-Credential',
      'auth',
      'accesstoken',
      'session',
    ])
      expect(isCredentialParameter(name), name).toBe(true)
    for (const name of ['api-version', 'model', 'version', 'deployment', 'format', 'region', 'sv', 'se'])
      expect(isCredentialParameter(name), name).toBe(false)
  })

  it('urlCredentials names the parameters and keeps the values (decoded) for the filter only', () => {
    expect(urlCredentials('http://127.0.0.1:9/v1?api-version=2024-10-21&api-key=S3cr3t%2Bvalue&sig=abc')).toEqual({
      userinfo: false,
      parameters: ['api-key', 'sig'],
      values: ['S3cr3t+value', 'abc'],
    })
    expect(urlCredentials('postgres://bridle:pa%40ss-word-1@db:5432/x')).toEqual({
      userinfo: true,
      parameters: [],
      values: ['pa@ss-word-1', 'pa%40ss-word-1'],
    })
    expect(urlCredentials('https://tok-only-123@host/').values).toEqual(['tok-only-123'])
    expect(urlCredentials('not a url')).toEqual({ userinfo: false, parameters: [], values: [] })
  })
})

describe('namedCredentials', () => {
  it('keeps the values whose names mark a credential, and the token of a Bearer value', () => {
    expect(
      namedCredentials({
        Authorization: 'Bearer tok-abc-123456',
        'x-api-key': 'k-123456789',
        GITHUB_TOKEN: 'ghp_x',
        'X-Title': 'My App',
        PATH: '/usr/bin',
      }),
    ).toEqual(['Bearer tok-abc-123456', 'tok-abc-123456', 'k-123456789', 'ghp_x'])
    expect(namedCredentials(undefined)).toEqual([])
  })
})
