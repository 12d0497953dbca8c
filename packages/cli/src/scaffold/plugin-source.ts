/** The source and test of a scaffolded plugin package (`bridle new plugin`): one section, one context, one tool. */

/** `src/index.ts`: a typed `Config`, a section with a `{{variable}}`, a runtime context, a tool with a zod schema. */
export function pluginSource(name: string, prefix: string): string {
  return `import { configParser, parseConfig } from '@bridle/llm'
// the services this plugin uses: importing their types adds ctx.systemPrompt and ctx.tools to cordis' Context
import type {} from '@bridle/system-prompt'
import type {} from '@bridle/tools'
import type { Context } from 'cordis'
import { z } from 'zod'

/** The plugin's name: cordis shows it, and config errors start with it. */
export const name = ${JSON.stringify(name)}

/** The services the plugin needs; cordis starts it once they are all there, and stops it when one goes. */
export const inject = ['systemPrompt', 'tools']

/** What the plugin accepts as config (a bridle.yaml row's \`config:\`, or ctx.plugin's second argument). */
export const ConfigSchema = z
  .object({
    /** How many notes the model may keep. */
    maxNotes: z.number().int().positive().default(20),
  })
  .strict()

export type NotesConfig = z.infer<typeof ConfigSchema>

/** Parses a raw config. A bad one throws a \`ConfigError\` naming this plugin and each failing field. */
export const Config = configParser(
  (raw?: z.input<typeof ConfigSchema> | null): NotesConfig => parseConfig(name, ConfigSchema, raw),
)

/**
 * Called when the plugin loads, with the context that owns everything it registers: disposing the plugin (an unload,
 * a hot reload) removes the section, the context and the tool, so nothing here needs a disposer of its own.
 */
export function apply(ctx: Context, raw?: z.input<typeof ConfigSchema> | null): void {
  const config = Config(raw)
  // state lives in the plugin instance, never at module level: a reload starts from a fresh list
  const notes: string[] = []

  ctx.systemPrompt.section({
    name: '${prefix}:guide',
    order: 150,
    text: 'Keep short notes about the work in {{cwd}} with the add_note tool; the current notes are in the runtime context.',
  })
  ctx.systemPrompt.context({
    name: '${prefix}:notes',
    order: 60,
    // a context provider runs once per step, right before the step's request is built
    text: () => (notes.length === 0 ? '' : \`Notes:\\n\${notes.map((note) => \`- \${note}\`).join('\\n')}\`),
  })
  ctx.tools.register({
    name: 'add_note',
    description: 'Add a short note to the list the model keeps for this session.',
    parameters: z.object({ text: z.string().min(1).describe('the note, one line') }),
    execute: ({ text }) => {
      if (notes.length >= config.maxNotes) return \`the list is full (\${config.maxNotes} notes)\`
      notes.push(text)
      return \`noted (\${notes.length} of \${config.maxNotes}): \${text}\`
    },
  })
}

export default { name, inject, Config, apply }
`
}

/** `test/plugin.test.mjs`: the plugin in a real agent, driven by the scripted offline model (node:test, no network). */
export function pluginTest(): string {
  return `import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AgentLoop } from '@bridle/agent-loop'
import { LlmRuntime, createUserMessage } from '@bridle/llm'
import { ScriptedModel } from '@bridle/plugin-scripted-model'
import { SessionStore } from '@bridle/session'
import { SystemPrompt } from '@bridle/system-prompt'
import { ToolRegistry } from '@bridle/tools'
import { Context } from 'cordis'
import plugin from '../dist/index.js'

/** An app with the core services, the scripted model answering \`steps\`, and this plugin with \`config\`. */
async function app(steps, config) {
  const ctx = new Context()
  ctx.plugin(LlmRuntime)
  ctx.plugin(SystemPrompt, {})
  ctx.plugin(SessionStore)
  ctx.plugin(ToolRegistry)
  ctx.plugin(AgentLoop, {})
  ctx.plugin(ScriptedModel, { turns: [{ steps }] })
  ctx.plugin(plugin, config)
  await new Promise((resolve) => setTimeout(resolve, 0))
  const agent = ctx.agentLoop.create({ provider: 'scripted', model: 'scripted-demo', cwd: process.cwd() })
  return { ctx, agent }
}

test('the model sees the guide and the tool; a call adds a note that the next step shows', async () => {
  const { ctx, agent } = await app(
    [{ toolCalls: [{ name: 'add_note', arguments: { text: 'check the tests' } }] }, { text: 'Done: {{tool-result}}' }],
    { maxNotes: 3 },
  )
  agent.followup(createUserMessage('Remember to check the tests.'))
  await agent.whenIdle()
  const events = agent.session.events
  const header = events.find((event) => event.type === 'request/header').data.header
  assert.match(header.system, /Keep short notes about the work in /)
  assert.deepEqual(
    header.tools.map((tool) => tool.name),
    ['add_note'],
  )
  const result = events.find((event) => event.type === 'tool/result').data.message.content[0].content[0].text
  assert.equal(result, 'noted (1 of 3): check the tests')
  const contexts = events.filter((event) => event.type === 'user/message' && event.data.source.form === 'snapshot')
  assert.match(contexts.at(-1).data.content[0].text, /- check the tests/)
  const end = events.findLast((event) => event.type === 'turn/end')
  assert.deepEqual(end.data.reason, { kind: 'completed' })
  await ctx.scope.dispose()
})

test('a bad config names the plugin and the field', () => {
  assert.throws(
    () => plugin.Config({ maxNotes: 0 }),
    (error) => error.name === 'ConfigError' && error.message.startsWith(\`\${plugin.name}: invalid config: maxNotes\`),
  )
  assert.throws(() => plugin.Config({ maxnotes: 3 }), /maxnotes/)
})
`
}
