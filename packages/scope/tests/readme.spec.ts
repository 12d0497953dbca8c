import { readFileSync } from 'node:fs'
import { Context } from 'cordis'
import { expect, it } from 'vitest'
import * as scope from '@bridle/scope'

/** Runs the README example as written (imports swapped for injected bindings) and checks what it prints. */
it('the README example runs and prints what its comments say', async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const code = /```js\n([\s\S]*?)```/.exec(readme)?.[1]
  expect(code).toBeDefined()
  const body = code!.replace(/^import .*$/gm, '')
  const printed: unknown[] = []
  const fakeConsole = { log: (value: unknown) => printed.push(value) }
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
    ...args: string[]
  ) => (...values: unknown[]) => Promise<void>
  const names = ['Context', 'console', ...Object.keys(scope)]
  const run = new AsyncFunction(...names, body)
  await run(Context, fakeConsole, ...Object.values(scope))
  expect(printed).toEqual([
    'sections changed',
    'sections changed',
    'sections changed',
    'sections changed',
    [
      ['persona', 'You are helpful.'],
      ['style', 'Show code.'],
      ['task', 'Fix the bug.'],
    ],
    [
      ['persona', 'You are helpful.'],
      ['style', 'Be brief.'],
    ],
    '[x] | untagged',
    'sections changed',
    undefined,
  ])
})
