/**
 * The design chapter's scenario, end to end: the user asks for the package name, step 1 calls read_file, and we
 * prove what step 2's model call saw — from the durable log alone.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ReadFile } from '@bridle/plugin-read-file'
import { reconstructRequest, requestDigestParts, verifyDigests } from '@bridle/session'
import type { GenerateOptions } from '@bridle/llm'
import { boot, callTools, say, user } from '../packages/agent-loop/tests/harness.js'

const PERSONA = 'You are a careful assistant for the {{cwd}} workspace.'
let workspace: string

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'bridle-walkthrough-'))
  await writeFile(join(workspace, 'package.json'), JSON.stringify({ name: 'demo-package', version: '1.0.0' }, null, 2))
})
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true })
})

const textOf = (m: GenerateOptions['messages'][number]) =>
  m.content.map((b) => (b.type === 'text' ? b.text : b.type)).join('|')

describe('chapter 07 walk-through', () => {
  it('step 2 sees identity, persona and guidance, canonical tools, and history with snapshots; the log proves it', async () => {
    const h = boot({ systemPrompt: { persona: PERSONA } })
    // Tools registered out of canonical order: the header never depends on registration order.
    h.ctx.tools.register({
      name: 'write_note',
      description: 'Write a note.',
      parameters: { type: 'object' },
      execute: () => 'ok',
    })
    h.ctx.plugin(ReadFile)
    h.ctx.tools.register({
      name: 'list_dir',
      description: 'List a directory.',
      parameters: { type: 'object' },
      execute: () => 'ok',
    })
    // A runtime context whose value changes once read_file has run.
    const filesRead: string[] = []
    h.ctx.on('tools/result', (exec) => {
      if (exec.name === 'read_file') filesRead.push((exec.arguments as { path: string }).path)
    })
    h.ctx.systemPrompt.context({ name: 'workspace:cwd', order: 0, text: 'cwd: {{cwd}}' })
    h.ctx.systemPrompt.context({
      name: 'workspace:files-read',
      order: 10,
      text: () => `files read: ${filesRead.length ? filesRead.join(', ') : '(none)'}`,
    })
    await new Promise((r) => setTimeout(r, 0))

    const agent = h.agent({ cwd: workspace })
    h.script.push(callTools({ id: 'call-1', name: 'read_file', args: '{"path":"package.json"}' }), (request) => {
      const result = request.messages.find((m) => m.content[0]?.type === 'tool-result')!
      const body = JSON.stringify(result.content)
      const name = /\\"name\\": \\"([^\\"]+)\\"/.exec(body)?.[1] ?? '?'
      return say(`The package name is ${name}.`)(request)
    })
    h.trace.length = 0
    agent.followup(user('What is the package name?'))
    await agent.whenIdle()

    const snapshot1 = `[snapshot] cwd: ${workspace}\n\nfiles read: (none)`
    const snapshot2 = `[snapshot] cwd: ${workspace}\n\nfiles read: package.json`
    expect(h.trace).toEqual([
      'S:spliced next-turn @0 +[What is the package name?]',
      'L:inserted What is the package name?',
      'L:status running',
      'S:turn/start 1',
      'S:spliced next-turn @0 -1',
      'L:claimed What is the package name? 1',
      'S:step/start 1.1',
      'S:user/message What is the package name?',
      `S:user/message ${snapshot1}`,
      'S:request/header initial',
      'S:request/context',
      'S:request/digest 1.1#1',
      'S:chunk block-start',
      'S:chunk tool-call-delta',
      'S:chunk block-end',
      'S:chunk finish',
      'S:assistant/message 1.1',
      'S:tool/call call-1',
      'S:tool/result call-1',
      'S:step/end 1.1',
      'S:step/start 1.2',
      `S:user/message ${snapshot2}`,
      'S:request/digest 1.2#1',
      'S:chunk block-start',
      'S:chunk text-delta',
      'S:chunk block-end',
      'S:chunk usage',
      'S:chunk finish',
      'S:assistant/message 1.2',
      'S:step/end 1.2',
      'S:turn/end 1 completed',
      'L:status idle',
    ])

    const step2 = h.requests[1]!
    // System: identity, persona (interpolated), tool guidance — in order.
    const sections = step2.system!.split('\n\n')
    expect(sections[0]).toBe('You are an AI agent powered by Bridle.')
    expect(sections[1]).toBe(`You are a careful assistant for the ${workspace} workspace.`)
    expect(sections[2]).toMatch(/^Reading files: use the read_file tool\./)
    // Tools in canonical (code-unit) order, not registration order.
    expect(step2.tools!.map((t) => t.name)).toEqual(['list_dir', 'read_file', 'write_note'])
    // History: question → snapshot → assistant tool call → tool result → changed snapshot.
    expect(step2.messages.map((m) => m.role)).toEqual(['user', 'user', 'assistant', 'user', 'user'])
    expect(textOf(step2.messages[0]!)).toBe('What is the package name?')
    expect(textOf(step2.messages[1]!)).toContain('files read: (none)')
    expect(step2.messages[2]!.content).toEqual([
      { type: 'tool-call', id: 'call-1', name: 'read_file', arguments: '{"path":"package.json"}' },
    ])
    expect(step2.messages[3]!.content[0]).toMatchObject({ type: 'tool-result', toolCallId: 'call-1' })
    expect(JSON.stringify(step2.messages[3]!.content)).toContain('demo-package')
    expect(textOf(step2.messages[4]!)).toContain('files read: package.json')
    // The snapshot never touches the system prompt: step 2 logged no header.
    expect(agent.session.events.filter((e) => e.type === 'request/header')).toHaveLength(1)

    // Proof: the log alone rebuilds exactly what the adapter received, and the digest matches.
    const rebuilt = reconstructRequest(agent.session.events, { turn: 1, step: 2 })
    const { signal: _signal, sessionId: _sessionId, ...sent } = step2
    expect(JSON.parse(JSON.stringify(rebuilt.request))).toEqual(JSON.parse(JSON.stringify(sent)))
    expect(rebuilt.headerReason).toBe('initial')
    rebuilt.messages.forEach((m, i) => expect(m).toBe(step2.messages[i]))
    const digest = agent.session.events.find(
      (e) => e.type === 'request/digest' && (e.data as { step: number }).step === 2,
    )!
    expect(digest.data).toMatchObject(requestDigestParts(rebuilt.request))
    expect(verifyDigests(agent.session.events).map((r) => r.ok)).toEqual([true, true])

    const answer = agent.session.events.filter((e) => e.type === 'assistant/message').at(-1)!.data as {
      message: { content: readonly { text: string }[] }
    }
    expect(answer.message.content[0]!.text).toBe('The package name is demo-package.')
  })
})
