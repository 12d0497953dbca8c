// The stranger's project of the release rehearsal: the README "In code" example, adapted only to the scripted
// model, as JavaScript to run and as TypeScript to typecheck, plus type checks a stranger would rely on.

/** The ```ts block under "## In code" in the root README. */
export function exampleFromReadme(readme) {
  const section = readme.split(/^## In code$/m)[1]
  const block = section === undefined ? undefined : /```ts\n([\s\S]*?)```/.exec(section)
  if (!block) throw new Error('README.md has no ```ts block under "## In code"')
  return block[1]
}

/** Swaps `from` for `to` exactly once, so a README that drifted from what the rehearsal expects fails loudly. */
function swapOnce(code, from, to) {
  const parts = code.split(from)
  if (parts.length !== 2)
    throw new Error(`the README example should contain \`${from}\` exactly once (found ${parts.length - 1})`)
  return parts.join(to)
}

const SCRIPT = `{
  turns: [
    {
      steps: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'package.json' } }] },
        { text: 'The package is named {{tool-result:match:"name":\\\\s*"([^"]+)"}}.' },
      ],
    },
  ],
}`

/** The README example with the DeepSeek adapter replaced by the offline scripted model; nothing else changes. */
export function scriptedExample(example) {
  let code = swapOnce(
    example,
    "import * as llmOpenai from '@bridle/llm-openai'",
    "import { ScriptedModel } from '@bridle/plugin-scripted-model'",
  )
  code = code.replace(/^ctx\.plugin\(llmOpenai, .*$/m, (line) => {
    if (!line) throw new Error('the README example should load llmOpenai on one line')
    return `ctx.plugin(ScriptedModel, ${SCRIPT})`
  })
  if (code.includes('llmOpenai'))
    throw new Error('the README example should use llmOpenai only in its import and its ctx.plugin line')
  return swapOnce(code, "provider: 'deepseek', model: 'deepseek-chat'", "provider: 'scripted', model: 'scripted-demo'")
}

// What a TypeScript user leans on: configs are typed, and importing a package's plugin brings its ctx.x.
const TYPE_CHECKS = `import { Context } from 'cordis'
import { SystemPrompt } from '@bridle/system-prompt'
import { SessionJsonl } from '@bridle/session-jsonl'
import { ToolRegistry } from '@bridle/tools'
import { z } from 'zod'

export function plugin(ctx: Context) {
  ctx.plugin(SystemPrompt, { persona: 'ok' })
  // @ts-expect-error persona must be a string
  ctx.plugin(SystemPrompt, { persona: 3 })
  // @ts-expect-error writeBatchMaxDelayMs is a number
  ctx.plugin(SessionJsonl, { root: '.sessions', writeBatchMaxDelayMs: 'soon' })
  ctx.plugin(ToolRegistry)
  ctx.tools.register({ name: 'echo', description: 'echoes', parameters: z.object({ text: z.string() }), execute: ({ text }) => text })
}
`

const TSCONFIG = (module, moduleResolution) =>
  JSON.stringify(
    {
      compilerOptions: {
        target: 'es2022',
        module,
        moduleResolution,
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
      },
      files: ['example.ts', 'type-checks.ts'],
    },
    null,
    2,
  )

/** Every file of the consumer project but its .npmrc. */
export function consumerFiles(example) {
  const code = scriptedExample(example)
  return {
    'package.json': JSON.stringify(
      { name: 'bridle-rehearsal-consumer', version: '1.0.0', private: true, type: 'module' },
      null,
      2,
    ),
    'example.mjs': code,
    'example.ts': code,
    'type-checks.ts': TYPE_CHECKS,
    'tsconfig.nodenext.json': TSCONFIG('nodenext', 'nodenext'),
    'tsconfig.bundler.json': TSCONFIG('esnext', 'bundler'),
  }
}
