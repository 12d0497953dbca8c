import { ConfigError } from '@bridle/llm'
import { describe, expect, it } from 'vitest'
import { Config, ConfigSchema, Mcp, McpServer, parseServerConfig } from '../src/index.js'

const errorOf = (fn: () => unknown): ConfigError => {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return error as ConfigError
  }
  throw new Error('expected a ConfigError')
}

describe('Config', () => {
  it('fills the defaults of a stdio row and of a Streamable HTTP row', () => {
    const config = Config({
      servers: {
        fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv'] },
        web: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' } },
      },
    })
    expect(config.servers.fs).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv'],
      env: {},
      exclude: [],
      startupTimeoutMs: 30_000,
      callTimeoutMs: 60_000,
      pingTimeoutMs: 10_000,
      images: 'text',
      reconnect: { initialDelayMs: 500, factor: 2, maxDelayMs: 30_000 },
    })
    expect(config.servers.web).toMatchObject({
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer x' },
    })
    expect(Config(config)).toEqual(config)
    expect(Mcp.Config).toBe(Config)
  })

  it('null means absent, as in a bridle.yaml row with an empty key', () => {
    const config = Config({ servers: { a: { command: 'x', args: null, env: null, reconnect: null, images: null } } })
    expect(config.servers.a).toMatchObject({ args: [], env: {}, images: 'text', reconnect: { initialDelayMs: 500 } })
  })

  it('names the plugin and every failing field', () => {
    const error = errorOf(() =>
      Config({
        servers: {
          'bad name': { command: 'x' },
          a__b: { command: 'x' },
          fs: { command: '', args: 'not-an-array', colour: 'blue' },
          web: { url: 'ftp://example.com', headers: { A: 1 } },
        },
      }),
    )
    expect(error.message).toMatch(/^@bridle\/plugin-mcp: invalid config: /)
    const lines = error.message.replace(/^@bridle\/plugin-mcp: invalid config: /, '').split('; ')
    expect(lines).toEqual(
      expect.arrayContaining([
        'servers.bad name: server names use letters, digits, "-" and single "_" between them',
        'servers.a__b: server names use letters, digits, "-" and single "_" between them',
        'servers.fs.command: Too small: expected string to have >=1 characters',
        'servers.fs.args: Invalid input: expected array, received string',
        'servers.fs: Unrecognized key: "colour"',
        'servers.web.url: url must be an http:// or https:// URL',
        'servers.web.headers.A: Invalid input: expected string, received number',
      ]),
    )
  })

  it('a row is HTTP exactly when it has a url; a missing command says so', () => {
    expect(errorOf(() => Config({ servers: { a: {} } })).message).toBe(
      '@bridle/plugin-mcp: invalid config: servers.a.command: Invalid input: expected string, received undefined',
    )
    expect(errorOf(() => Config({ servers: { a: { url: 'http://x', command: 'y' } } })).message).toBe(
      '@bridle/plugin-mcp: invalid config: servers.a: Unrecognized key: "command"',
    )
    expect(errorOf(() => Config({})).message).toBe(
      '@bridle/plugin-mcp: invalid config: servers: expected an object of named servers ({ <name>: { command… } | { url… } })',
    )
  })

  it('limits server names to 32 characters, so `<server>__` survives any cut of a tool name', () => {
    expect(() => Config({ servers: { ['s'.repeat(32)]: { command: 'x' } } })).not.toThrow()
    expect(errorOf(() => Config({ servers: { ['s'.repeat(33)]: { command: 'x' } } })).message).toContain(
      'server names have at most 32 characters',
    )
  })

  it('exposes a plain zod schema', () => {
    expect(ConfigSchema.safeParse({ servers: {} }).success).toBe(true)
  })
})

describe('McpServer config (one named row)', () => {
  it('takes the name beside the row', () => {
    expect(parseServerConfig({ name: 'fs', command: 'node', args: ['server.js'] })).toMatchObject({
      name: 'fs',
      command: 'node',
      args: ['server.js'],
    })
    expect(McpServer.Config).toBe(parseServerConfig)
  })

  it('reports the name and the row fields', () => {
    expect(errorOf(() => parseServerConfig({ command: 'x' })).message).toBe(
      '@bridle/plugin-mcp: invalid config: name: expected a server name string',
    )
    expect(errorOf(() => parseServerConfig({ name: '_x', url: 'nope' })).message).toBe(
      '@bridle/plugin-mcp: invalid config: name: server names use letters, digits, "-" and single "_" between them; url: url must be an http:// or https:// URL',
    )
    expect(errorOf(() => parseServerConfig('fs')).message).toBe(
      '@bridle/plugin-mcp: invalid config: (root): expected an object { name, command… } or { name, url… }',
    )
  })
})
