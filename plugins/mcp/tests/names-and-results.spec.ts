import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { bridleToolName, mapCallResult, McpToolError, SERVER_NAME, TOOL_NAME } from '../src/index.js'

const SEED = 19_019

const serverName = fc
  .stringMatching(/^[A-Za-z0-9-]{1,8}(?:_[A-Za-z0-9-]{1,8}){0,2}$/)
  .filter((s) => s.length <= 32 && SERVER_NAME.test(s))
const toolName = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_-]{1,80}$/),
  fc.stringMatching(/^[A-Za-z0-9_.\-/ ]{1,80}$/),
  fc.string({ minLength: 1, maxLength: 90, unit: 'grapheme' }),
)

describe('bridleToolName', () => {
  it('is always a name providers accept, keeps the `<server>__` prefix, and depends only on the two names', () => {
    fc.assert(
      fc.property(serverName, toolName, (server, tool) => {
        const name = bridleToolName(server, tool)
        expect(name).toMatch(TOOL_NAME)
        expect(name.startsWith(`${server}__`)).toBe(true)
        expect(bridleToolName(server, tool)).toBe(name)
      }),
      { seed: SEED, numRuns: 500 },
    )
  })

  it('keeps names that already fit as they are, and tells apart tools that sanitize alike', () => {
    fc.assert(
      fc.property(serverName, fc.uniqueArray(toolName, { minLength: 2, maxLength: 6 }), (server, tools) => {
        const names = tools.map((tool) => bridleToolName(server, tool))
        expect(new Set(names).size).toBe(tools.length)
        tools.forEach((tool, i) => {
          if (TOOL_NAME.test(`${server}__${tool}`)) expect(names[i]).toBe(`${server}__${tool}`)
        })
      }),
      { seed: SEED, numRuns: 300 },
    )
    expect(bridleToolName('fs', 'read_file')).toBe('fs__read_file')
    expect(bridleToolName('gh', 'issues.create')).toMatch(/^gh__issues_create_[0-9a-f]{8}$/)
    expect(bridleToolName('gh', 'issues.create')).not.toBe(bridleToolName('gh', 'issues_create'))
    expect(bridleToolName('s', 'x'.repeat(100))).toHaveLength(64)
  })
})

describe('mapCallResult', () => {
  const png = Buffer.from('not really a png').toString('base64')

  it('text stays text; resources, links, audio and unknown items become one readable line each', () => {
    const mapped = mapCallResult(
      {
        content: [
          { type: 'text', text: 'hello' },
          { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'inside' } },
          { type: 'resource', resource: { uri: 'file:///b.bin', blob: Buffer.from([1, 2, 3]).toString('base64') } },
          { type: 'resource_link', uri: 'file:///c', name: 'c', description: 'the c file', mimeType: 'text/x-c' },
          { type: 'audio', data: Buffer.from([9, 9]).toString('base64'), mimeType: 'audio/wav' },
          { type: 'hologram', data: 'x' },
        ],
      },
      'text',
    )
    expect(mapped).toEqual({
      content: [
        { type: 'text', text: 'hello' },
        { type: 'text', text: '[resource file:///a.txt (text/plain)]\ninside' },
        {
          type: 'text',
          text: expect.stringMatching(
            /^\[resource file:\/\/\/b\.bin: application\/octet-stream, 3 bytes, sha256 [0-9a-f]{16}; not shown\]$/,
          ),
        },
        { type: 'text', text: '[resource link: c file:///c (text/x-c) — the c file]' },
        {
          type: 'text',
          text: expect.stringMatching(/^\[audio: audio\/wav, 2 bytes, sha256 [0-9a-f]{16}; not shown\]$/),
        },
        { type: 'text', text: '[unsupported MCP content type "hologram"]' },
      ],
    })
  })

  it('images: a line by default, an image block with durable bytes in meta when asked to attach', () => {
    const result = { content: [{ type: 'image', data: png, mimeType: 'image/png' }] }
    expect(mapCallResult(result, 'text').content[0]).toEqual({
      type: 'text',
      text: expect.stringMatching(/^\[image: image\/png, 16 bytes, sha256 [0-9a-f]{16}; not shown\]$/),
    })
    const attached = mapCallResult(result, 'attach')
    const block = attached.content[0] as { type: 'image'; attachment: { id: string; mediaType: string } }
    expect(block.type).toBe('image')
    expect(block.attachment.id).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(attached.meta).toEqual({ attachments: { [block.attachment.id]: { mediaType: 'image/png', data: png } } })
  })

  it('structured content is kept in meta, and shown as JSON only when there is no text', () => {
    expect(
      mapCallResult({ content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } }, 'text'),
    ).toEqual({
      content: [{ type: 'text', text: '{"a":1}' }],
      meta: { structuredContent: { a: 1 } },
    })
    expect(mapCallResult({ content: [], structuredContent: { a: [1, 2] } }, 'text')).toEqual({
      content: [{ type: 'text', text: '{"a":[1,2]}' }],
      meta: { structuredContent: { a: [1, 2] } },
    })
    expect(mapCallResult({ content: [] }, 'text')).toEqual({ content: [] })
  })

  it('isError throws the server text as a TOOL_ERROR', () => {
    const thrown = (() => {
      try {
        mapCallResult(
          {
            content: [
              { type: 'text', text: 'no such file' },
              { type: 'text', text: 'try again' },
            ],
            isError: true,
          },
          'text',
        )
      } catch (error) {
        return error
      }
    })() as McpToolError
    expect(thrown).toBeInstanceOf(McpToolError)
    expect([thrown.name, thrown.code, thrown.message]).toEqual([
      'McpToolError',
      'TOOL_ERROR',
      'no such file\ntry again',
    ])
    expect(() => mapCallResult({ isError: true }, 'text')).toThrow('the tool reported an error without a message')
  })
})
